/* Unit tests for the job framework's knowledge of owners: a kind of
 * integrations.externalFrameworks ("Kind.version.group") is matched
 * against an owner reference's apiVersion and kind, and named as Kueue
 * names its Workloads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/objects.h"
#include "controller/jobframework/jobframework.h"

static void test_external_owner(void **state)
{
    (void)state;
    const char *items[] = {"MyJob.v1.example.com", "Other.v2beta1.x.io"};
    struct api_configuration cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.external_frameworks.items = items;
    cfg.external_frameworks.n = 2;
    json_t *ref = json_pack("{s:s,s:s,s:s,s:s}", "apiVersion", "example.com/v1", "kind", "MyJob",
                            "name", "parent", "uid", "u-1");
    struct jf_integration ji;
    assert_true(jf_external_owner(ref, &cfg, &ji));
    assert_string_equal(ji.kind, "MyJob");
    assert_string_equal(ji.group, "example.com");
    char name[256];
    jf_workload_name(&ji, "parent", "u-1", name, sizeof(name));
    assert_int_equal(strncmp(name, "myjob-parent-", 13), 0);
    assert_int_equal(strlen(name), 18);
    json_t *other = json_pack("{s:s,s:s}", "apiVersion", "x.io/v2beta1", "kind", "Other");
    assert_true(jf_external_owner(other, &cfg, NULL));
    json_decref(other);
    /* Another version, group or kind, or no configuration: not known. */
    json_t *v2 = json_pack("{s:s,s:s}", "apiVersion", "example.com/v2", "kind", "MyJob");
    json_t *g = json_pack("{s:s,s:s}", "apiVersion", "example.org/v1", "kind", "MyJob");
    json_t *k = json_pack("{s:s,s:s}", "apiVersion", "example.com/v1", "kind", "MyJo");
    json_t *core = json_pack("{s:s,s:s}", "apiVersion", "v1", "kind", "MyJob");
    assert_false(jf_external_owner(v2, &cfg, NULL));
    assert_false(jf_external_owner(g, &cfg, NULL));
    assert_false(jf_external_owner(k, &cfg, NULL));
    assert_false(jf_external_owner(core, &cfg, NULL));
    assert_false(jf_external_owner(ref, NULL, NULL));
    json_decref(ref);
    json_decref(v2);
    json_decref(g);
    json_decref(k);
    json_decref(core);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_owner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
