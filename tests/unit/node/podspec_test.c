/* Unit tests for the node agent's reading of a Pod: the argument vector,
 * the environment and its $(VAR) expansion, the working directory, the
 * identity and the resources, and the errors that stop a Pod. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "node/podspec.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    assert_non_null(j);
    return j;
}

static const char *lookup(void *arg, const char *name)
{
    return !strcmp(name, "A") ? "1" : !strcmp(name, "EMPTY") ? "" : NULL;
}

static void test_ps_expand_rules(void **state)
{
    static const char *const cases[][2] = {
        {"$(A)", "1"},      {"x$(A)y", "x1y"},
        {"$(B)", "$(B)"},   {"$$(A)", "$(A)"},
        {"$$", "$"},        {"$A", "$A"},
        {"$(A", "$(A"},     {"a$", "a$"},
        {"$(EMPTY)-", "-"}, {"$(A)$(A)$$$(A)", "11$1"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = ps_expand(cases[i][0], lookup, NULL);
        assert_string_equal(out, cases[i][1]);
        free(out);
    }
}

static void test_ps_parse_command_env_defaults(void **state)
{
    json_t *pod = parse(
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u1\",\"labels\":{\"l\":\"v\"}"
        "},"
        "\"spec\":{\"restartPolicy\":\"Never\",\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\","
        "\"image\":\"img\",\"command\":[\"echo\",\"$(X)\"],\"args\":[\"$(Y)\",\"$(POD)\"],"
        "\"env\":[{\"name\":\"X\",\"value\":\"x\"},{\"name\":\"Y\",\"value\":\"$(X)-y\"},"
        "{\"name\":\"POD\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}},"
        "{\"name\":\"L\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.labels['l']\"}}},"
        "{\"name\":\"S\",\"valueFrom\":{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\"}}}]}]}}");
    struct ps_pod p;
    struct err e;
    err_init(&e);
    assert_int_equal(ps_parse(pod, &p, &e), 0);
    assert_string_equal(p.container, "c");
    assert_string_equal(p.image, "img");
    assert_string_equal(p.restart_policy, "Never");
    assert_int_equal(p.argc, 4);
    assert_string_equal(p.argv[0], "echo");
    assert_string_equal(p.argv[1], "x");
    assert_string_equal(p.argv[2], "x-y");
    assert_string_equal(p.argv[3], "p");
    assert_null(p.argv[4]);
    assert_string_equal(ps_getenv(&p, "L"), "v");
    assert_null(ps_getenv(&p, "S")); /* Secrets are not the agent's to read */
    assert_string_equal(ps_getenv(&p, "PATH"), PS_DEFAULT_PATH);
    assert_string_equal(ps_getenv(&p, "HOME"), PS_DEFAULT_DIR);
    assert_string_equal(p.working_dir, PS_DEFAULT_DIR);
    assert_int_equal(p.uid, 0);
    assert_int_equal(p.res.cpu_limit, -1);
    assert_int_equal(p.res.memory_request, -1);
    assert_int_equal(p.res.gpus, 0);
    ps_release(&p);
    json_decref(pod);
}

static void test_ps_parse_no_command_runs_true(void **state)
{
    json_t *pod = parse("{\"spec\":{\"containers\":[{\"env\":[{\"name\":\"PATH\",\"value\":\"/x\"},"
                        "{\"name\":\"HOME\",\"value\":\"/h\"}]}]}}");
    struct ps_pod p;
    struct err e;
    err_init(&e);
    assert_int_equal(ps_parse(pod, &p, &e), 0);
    assert_int_equal(p.argc, 1);
    assert_string_equal(p.argv[0], "true");
    assert_string_equal(p.container, "main");
    assert_string_equal(p.restart_policy, "Always");
    assert_string_equal(ps_getenv(&p, "PATH"), "/x");
    assert_string_equal(ps_getenv(&p, "HOME"), "/h");
    assert_int_equal(p.n_env, 2);
    ps_release(&p);
    json_decref(pod);
}

static void test_ps_parse_resources_identity(void **state)
{
    json_t *pod = parse(
        "{\"spec\":{\"securityContext\":{\"runAsUser\":1000,\"runAsGroup\":100},"
        "\"containers\":[{\"workingDir\":\"/work\",\"securityContext\":{\"runAsUser\":7},"
        "\"resources\":{\"limits\":{\"cpu\":\"1500m\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"2\"},"
        "\"requests\":{\"cpu\":\"0.5\",\"memory\":\"100M\"}}}]}}");
    struct ps_pod p;
    struct err e;
    err_init(&e);
    assert_int_equal(ps_parse(pod, &p, &e), 0);
    assert_int_equal(p.uid, 7); /* the container's securityContext wins */
    assert_int_equal(p.gid, 100);
    assert_string_equal(p.working_dir, "/work");
    assert_int_equal(p.res.cpu_limit, 1500);
    assert_int_equal(p.res.cpu_request, 500);
    assert_int_equal(p.res.memory_limit, 1073741824);
    assert_int_equal(p.res.memory_request, 100000000);
    assert_int_equal(p.res.gpus, 2);
    ps_release(&p);
    json_decref(pod);
}

static void expect_invalid(const char *pod_json, const char *want)
{
    json_t *pod = parse(pod_json);
    struct ps_pod p;
    struct err e;
    err_init(&e);
    assert_int_equal(ps_parse(pod, &p, &e), ERR_INVALID);
    struct sb sb = SB_INIT;
    err_format(&e, &sb);
    assert_string_equal(sb_str(&sb), want);
    sb_release(&sb);
    assert_null(p.argv);
    json_decref(pod);
}

static void test_ps_parse_errors(void **state)
{
    expect_invalid("{\"spec\":{}}", "spec.containers: Required value");
    expect_invalid(
        "{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"memory\":\"12x\"}}}]}}",
        "spec.containers[0].resources.limits[memory]: Invalid value: \"12x\": must be "
        "a non-negative quantity");
    expect_invalid("{\"spec\":{\"containers\":[{\"workingDir\":\"rel\"}]}}",
                   "spec.containers[0].workingDir: Invalid value: \"rel\": must be an absolute "
                   "path");
    expect_invalid("{\"spec\":{\"securityContext\":{\"runAsUser\":-1},\"containers\":[{}]}}",
                   "spec.securityContext.runAsUser: Invalid value: must be between 0 and "
                   "2147483647, inclusive");
    expect_invalid("{\"spec\":{\"containers\":[{\"securityContext\":{\"runAsGroup\":\"x\"}}]}}",
                   "spec.containers[0].securityContext.runAsGroup: Invalid value: must be between "
                   "0 and 2147483647, inclusive");
    expect_invalid("{\"spec\":{\"containers\":[{\"env\":[{\"name\":\"A=B\"}]}]}}",
                   "spec.containers[0].env[0].name: Invalid value: \"A=B\": must be a variable "
                   "name");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ps_expand_rules),
        cmocka_unit_test(test_ps_parse_command_env_defaults),
        cmocka_unit_test(test_ps_parse_no_command_runs_true),
        cmocka_unit_test(test_ps_parse_resources_identity),
        cmocka_unit_test(test_ps_parse_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
