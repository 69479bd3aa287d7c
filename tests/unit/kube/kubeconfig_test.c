/* Unit tests for kubeconfig resolution and the in-cluster configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "kube/kubeconfig.h"

/* Parse JSON text (a kubeconfig is YAML, and JSON is YAML) and resolve it. */
static int resolve(const char *text, const char *context, struct kc_config *c, struct err *e)
{
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    if (!doc)
        fail_msg("bad test json: %s at %d", jerr.text, jerr.line);
    err_init(e);
    int rc = kc_config_from_json(doc, context, "/etc/kube", "cfg", c, e);
    json_decref(doc);
    return rc;
}

/* base64 of "-----BEGIN CERTIFICATE-----\nCA\n" and friends */
#define CA_B64 "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCg=="
#define CERT_B64 "Q0VSVA==" /* "CERT" */
#define KEY_B64 "S0VZIQ=="  /* "KEY!" */

static const char *two_contexts =
    "{\"apiVersion\":\"v1\",\"kind\":\"Config\",\"current-context\":\"dev\","
    "\"clusters\":["
    " {\"name\":\"c-dev\",\"cluster\":{\"server\":\"https://10.0.0.1:6443/\","
    "  \"certificate-authority\":\"certs/ca.pem\"}},"
    " {\"name\":\"c-prod\",\"cluster\":{\"server\":\"https://prod:443\","
    "  \"certificate-authority-data\":\"" CA_B64 "\"}},"
    " {\"name\":\"c-lab\",\"cluster\":{\"server\":\"https://"
    "lab\",\"insecure-skip-tls-verify\":true}}"
    "],"
    "\"users\":["
    " {\"name\":\"u-dev\",\"user\":{\"token\":\"abc.def\"}},"
    " {\"name\":\"u-prod\",\"user\":{\"client-certificate-data\":\"" CERT_B64 "\","
    "  \"client-key-data\":\"" KEY_B64 "\"}},"
    " {\"name\":\"u-lab\",\"user\":{\"client-certificate\":\"/abs/cert.pem\","
    "  \"client-key\":\"key.pem\",\"tokenFile\":\"tok\"}}"
    "],"
    "\"contexts\":["
    " {\"name\":\"dev\",\"context\":{\"cluster\":\"c-dev\",\"user\":\"u-dev\",\"namespace\":\"team-"
    "a\"}},"
    " {\"name\":\"prod\",\"context\":{\"cluster\":\"c-prod\",\"user\":\"u-prod\"}},"
    " {\"name\":\"lab\",\"context\":{\"cluster\":\"c-lab\",\"user\":\"u-lab\"}},"
    " {\"name\":\"anon\",\"context\":{\"cluster\":\"c-lab\"}}"
    "]}";

static void test_kc_config_from_json_current_context(void **state)
{
    struct kc_config c;
    struct err e;
    assert_int_equal(resolve(two_contexts, NULL, &c, &e), 0);
    assert_string_equal(c.server, "https://10.0.0.1:6443");   /* trailing slash dropped */
    assert_string_equal(c.ca_file, "/etc/kube/certs/ca.pem"); /* relative to the file */
    assert_null(c.ca_data);
    assert_false(c.insecure);
    assert_string_equal(c.token, "abc.def");
    assert_null(c.cert_file);
    assert_string_equal(c.namespace, "team-a");
    assert_string_equal(c.context, "dev");
    kc_config_release(&c);
}

static void test_kc_config_from_json_inline_data(void **state)
{
    struct kc_config c;
    struct err e;
    assert_int_equal(resolve(two_contexts, "prod", &c, &e), 0);
    assert_string_equal(c.server, "https://prod:443");
    assert_null(c.ca_file);
    assert_string_equal(c.ca_data, "-----BEGIN CERTIFICATE-----\nCA\n");
    assert_int_equal(c.ca_data_len, strlen("-----BEGIN CERTIFICATE-----\nCA\n"));
    assert_int_equal(c.cert_data_len, 4);
    assert_memory_equal(c.cert_data, "CERT", 4);
    assert_memory_equal(c.key_data, "KEY!", 4);
    assert_null(c.token);
    assert_null(c.namespace);
    kc_config_release(&c);
}

static void test_kc_config_from_json_files_and_insecure(void **state)
{
    struct kc_config c;
    struct err e;
    assert_int_equal(resolve(two_contexts, "lab", &c, &e), 0);
    assert_true(c.insecure);
    assert_string_equal(c.cert_file, "/abs/cert.pem");
    assert_string_equal(c.key_file, "/etc/kube/key.pem");
    assert_string_equal(c.token_file, "/etc/kube/tok");
    kc_config_release(&c);

    assert_int_equal(resolve(two_contexts, "anon", &c, &e), 0);
    assert_null(c.token);
    assert_null(c.cert_file);
    kc_config_release(&c);
}

/* Each broken document and the message naming its field. */
static void test_kc_config_from_json_errors_name_the_field(void **state)
{
    static const struct {
        const char *doc;
        const char *context;
        const char *message;
    } cases[] = {
        {"{\"contexts\":[]}", NULL,
         "kubeconfig cfg: current-context: required (or name a context)"},
        {"{\"current-context\":\"x\",\"contexts\":[]}", NULL,
         "kubeconfig cfg: contexts: no context named 'x'"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{}}]}", "a",
         "kubeconfig cfg: contexts[0].context.cluster: required"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"k\"}}]}", "a",
         "kubeconfig cfg: clusters: no cluster named 'k'"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"k\"}}],"
         "\"clusters\":[{\"name\":\"z\"},{\"name\":\"k\",\"cluster\":{}}]}",
         "a", "kubeconfig cfg: clusters[1].cluster.server: required"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"k\"}}],"
         "\"clusters\":[{\"name\":\"k\",\"cluster\":{\"server\":\"ftp://x\"}}]}",
         "a", "kubeconfig cfg: clusters[0].cluster.server: must be an http:// or https:// URL"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"k\"}}],"
         "\"clusters\":[{\"name\":\"k\",\"cluster\":{\"server\":\"https://x\","
         "\"certificate-authority-data\":\"not base64!\"}}]}",
         "a",
         "kubeconfig cfg: clusters[0].cluster.certificate-authority-data: "
         "must be base64-encoded"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"k\"}}],"
         "\"clusters\":[{\"name\":\"k\",\"cluster\":{\"server\":\"https://x\","
         "\"insecure-skip-tls-verify\":\"yes\"}}]}",
         "a",
         "kubeconfig cfg: clusters[0].cluster.insecure-skip-tls-verify: must be true or false"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"k\",\"user\":\"u\"}}],"
         "\"clusters\":[{\"name\":\"k\",\"cluster\":{\"server\":\"https://x\"}}]}",
         "a", "kubeconfig cfg: users: no user named 'u'"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"k\",\"user\":\"u\"}}],"
         "\"clusters\":[{\"name\":\"k\",\"cluster\":{\"server\":\"https://x\"}}],"
         "\"users\":[{\"name\":\"u\",\"user\":{\"client-certificate\":\"c.pem\"}}]}",
         "a", "kubeconfig cfg: users[0].user.client-key: required with client-certificate"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"k\",\"user\":\"u\"}}],"
         "\"clusters\":[{\"name\":\"k\",\"cluster\":{\"server\":\"https://x\"}}],"
         "\"users\":[{\"name\":\"u\",\"user\":{\"token\":7}}]}",
         "a", "kubeconfig cfg: users[0].user.token: must be a string"},
        {"{\"contexts\":[{\"name\":\"a\",\"context\":{\"cluster\":\"k\",\"user\":\"u\"}}],"
         "\"clusters\":[{\"name\":\"k\",\"cluster\":{\"server\":\"https://x\"}}],"
         "\"users\":[{\"name\":\"u\",\"user\":{\"exec\":{\"command\":\"gke-auth\"}}}]}",
         "a",
         "kubeconfig cfg: users[0].user.exec: credential plugins are not supported; use a "
         "token or a client certificate"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct kc_config c;
        struct err e;
        int rc = resolve(cases[i].doc, cases[i].context, &c, &e);
        if (rc != ERR_INVALID || strcmp(e.message, cases[i].message))
            fail_msg("case %zu: rc %d, message '%s'", i, rc, e.message);
        assert_null(c.server); /* nothing is left behind on failure */
    }
}

static void test_kc_base64_decode(void **state)
{
    char *out;
    size_t len;
    assert_int_equal(kc_base64_decode("aGVs\nbG8=", &out, &len), 0);
    assert_int_equal(len, 5);
    assert_string_equal(out, "hello");
    free(out);
    assert_int_equal(kc_base64_decode("", &out, &len), 0);
    assert_int_equal(len, 0);
    free(out);
    assert_int_equal(kc_base64_decode("aGVsbG8", &out, &len), 0); /* padding optional */
    assert_string_equal(out, "hello");
    free(out);
    assert_int_equal(kc_base64_decode("a", &out, &len), ERR_INVALID);
    assert_int_equal(kc_base64_decode("aG=s", &out, &len), ERR_INVALID);
    assert_int_equal(kc_base64_decode("a$==", &out, &len), ERR_INVALID);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void rm_file(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    unlink(path);
}

static void test_kc_config_in_cluster(void **state)
{
    char dir[] = "/tmp/cueue-sa-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "token", "sa-token\n");
    write_file(dir, "ca.crt", "-----BEGIN CERTIFICATE-----\n");
    write_file(dir, "namespace", "kueue-system\n");
    struct kc_config c;
    struct err e;
    err_init(&e);

    unsetenv("KUBERNETES_SERVICE_HOST");
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    assert_int_equal(kc_config_in_cluster(dir, &c, &e), ERR_NOT_FOUND);

    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    assert_int_equal(kc_config_in_cluster(dir, &c, &e), 0);
    assert_string_equal(c.server, "https://10.96.0.1:443");
    char want[600];
    snprintf(want, sizeof(want), "%s/token", dir);
    assert_string_equal(c.token_file, want);
    snprintf(want, sizeof(want), "%s/ca.crt", dir);
    assert_string_equal(c.ca_file, want);
    assert_string_equal(c.namespace, "kueue-system");
    assert_null(c.token); /* read per request, as it rotates */
    kc_config_release(&c);

    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    rm_file(dir, "namespace");
    assert_int_equal(kc_config_in_cluster(dir, &c, &e), 0);
    assert_string_equal(c.server, "https://[fd00::1]:443");
    assert_null(c.namespace);
    kc_config_release(&c);

    rm_file(dir, "token");
    err_init(&e);
    assert_int_equal(kc_config_in_cluster(dir, &c, &e), ERR_IO);
    assert_non_null(strstr(e.message, "/token"));
    assert_null(c.server);

    rm_file(dir, "ca.crt");
    rmdir(dir);
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
}

/* A real kubeconfig as kubectl writes it: YAML, found through $KUBECONFIG
 * (first entry of a list), relative paths from the file's directory. */
static void test_kc_config_load_yaml(void **state)
{
    char dir[] = "/tmp/cueue-kcfg-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "config",
               "apiVersion: v1\n"
               "kind: Config\n"
               "current-context: kind-cueue\n"
               "preferences: {}\n"
               "clusters:\n"
               "- cluster:\n"
               "    certificate-authority: pki/ca.crt\n"
               "    server: https://127.0.0.1:6443\n"
               "  name: kind-cueue\n"
               "contexts:\n"
               "- context:\n"
               "    cluster: kind-cueue\n"
               "    namespace: kueue-system\n"
               "    user: kind-cueue\n"
               "  name: kind-cueue\n"
               "users:\n"
               "- name: kind-cueue\n"
               "  user:\n"
               "    client-certificate-data: " CERT_B64 "\n"
               "    client-key-data: " KEY_B64 "\n");
    char path[512], list[1100];
    snprintf(path, sizeof(path), "%s/config", dir);
    snprintf(list, sizeof(list), "%s:/nonexistent/other", path);
    setenv("KUBECONFIG", list, 1);
    struct kc_config c;
    struct err e;
    err_init(&e);
    assert_int_equal(kc_config_load(NULL, NULL, &c, &e), 0);
    assert_string_equal(c.server, "https://127.0.0.1:6443");
    char want[600];
    snprintf(want, sizeof(want), "%s/pki/ca.crt", dir);
    assert_string_equal(c.ca_file, want);
    assert_memory_equal(c.cert_data, "CERT", 4);
    assert_memory_equal(c.key_data, "KEY!", 4);
    assert_string_equal(c.namespace, "kueue-system");
    kc_config_release(&c);

    /* The order `cueue controller` follows: an explicit file, else the pod's
     * service account, else $KUBECONFIG. */
    write_file(dir, "token", "t\n");
    write_file(dir, "ca.crt", "ca\n");
    setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    assert_int_equal(kc_config_resolve(path, NULL, dir, &c, &e), 0);
    assert_string_equal(c.server, "https://127.0.0.1:6443");
    kc_config_release(&c);
    assert_int_equal(kc_config_resolve(NULL, NULL, dir, &c, &e), 0);
    assert_string_equal(c.server, "https://10.0.0.1:443");
    kc_config_release(&c);
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    assert_int_equal(kc_config_resolve(NULL, NULL, dir, &c, &e), 0);
    assert_string_equal(c.server, "https://127.0.0.1:6443");
    kc_config_release(&c);
    rm_file(dir, "token");
    rm_file(dir, "ca.crt");
    unsetenv("KUBECONFIG");

    /* Errors name the file. */
    write_file(dir, "broken", "clusters: [\n");
    snprintf(path, sizeof(path), "%s/broken", dir);
    err_init(&e);
    assert_int_equal(kc_config_load(path, NULL, &c, &e), ERR_PARSE);
    write_file(dir, "nocontext", "apiVersion: v1\nkind: Config\n");
    snprintf(path, sizeof(path), "%s/nocontext", dir);
    err_init(&e);
    assert_int_equal(kc_config_load(path, NULL, &c, &e), ERR_INVALID);
    char msg[700];
    snprintf(msg, sizeof(msg), "kubeconfig %s: current-context: required (or name a context)",
             path);
    assert_string_equal(e.message, msg);
    err_init(&e);
    assert_int_equal(kc_config_load("/nonexistent/kubeconfig", NULL, &c, &e), ERR_IO);
    assert_non_null(strstr(e.message, "'/nonexistent/kubeconfig'"));
    rm_file(dir, "config");
    rm_file(dir, "broken");
    rm_file(dir, "nocontext");
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kc_config_from_json_current_context),
        cmocka_unit_test(test_kc_config_from_json_inline_data),
        cmocka_unit_test(test_kc_config_from_json_files_and_insecure),
        cmocka_unit_test(test_kc_config_from_json_errors_name_the_field),
        cmocka_unit_test(test_kc_base64_decode),
        cmocka_unit_test(test_kc_config_in_cluster),
        cmocka_unit_test(test_kc_config_load_yaml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
