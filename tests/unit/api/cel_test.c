/* cel_test.c -- api/cel.h: the CEL subset of CRD validation rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/cel.h"
#include "base/err.h"

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
    if (!v)
        fail_msg("bad test JSON: %s: %s", je.text, text);
    return v;
}

/* Evaluate rule on self (and old_self) given as JSON text. */
static enum cel_result run(const char *rule, const char *self, const char *old, char *why,
                           size_t len)
{
    struct cel *c = NULL;
    char err[300];
    int rc = cel_compile(rule, &c, err, sizeof(err));
    if (rc)
        fail_msg("compile %s: %s", rule, err);
    json_t *s = parse(self);
    json_t *o = old ? parse(old) : NULL;
    long budget = 10000000;
    enum cel_result r = cel_eval(c, s, o, &budget, why, len);
    json_decref(s);
    json_decref(o);
    cel_free(c);
    return r;
}

static void assert_rule(const char *rule, const char *self, const char *old, enum cel_result want)
{
    char why[300];
    enum cel_result got = run(rule, self, old, why, sizeof(why));
    if (got != want)
        fail_msg("%s on %s: got %d (%s), want %d", rule, self, got, why, want);
}

/* The rules of Kueue's own CRDs (docs/serve.md lists them), each true and
 * false on a value that shows it. */
static void test_cel_kueue_rules(void **state)
{
    assert_rule("self == oldSelf", "\"a\"", "\"a\"", CEL_TRUE);
    assert_rule("self == oldSelf", "\"a\"", "\"b\"", CEL_FALSE);
    assert_rule("self == oldSelf", "\"a\"", NULL, CEL_TRUE); /* no old value: not run */
    const char *borrow = "!has(self.cohortName) && has(self.resourceGroups) ? "
                         "self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, "
                         "!has(r.borrowingLimit)))) : true";
    assert_rule(borrow,
                "{\"resourceGroups\":[{\"flavors\":[{\"resources\":[{\"borrowingLimit\":1}]}]}]}",
                NULL, CEL_FALSE);
    assert_rule(borrow,
                "{\"cohortName\":\"c\",\"resourceGroups\":[{\"flavors\":[{\"resources\":[{"
                "\"borrowingLimit\":1}]}]}]}",
                NULL, CEL_TRUE);
    const char *pref = "!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && "
                       "self.whenCanPreempt == 'TryNextFlavor')";
    assert_rule(pref,
                "{\"preference\":\"x\",\"whenCanBorrow\":\"MayStopSearch\","
                "\"whenCanPreempt\":\"TryNextFlavor\"}",
                NULL, CEL_FALSE);
    const char *reclaim = "!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) "
                          "&&  self.borrowWithinCohort.policy != 'Never')";
    assert_rule(reclaim,
                "{\"reclaimWithinCohort\":\"Never\",\"borrowWithinCohort\":{\"policy\":"
                "\"LowerPriority\"}}",
                NULL, CEL_FALSE);
    assert_rule("self.flavors.all(x, size(x.resources) == size(self.coveredResources))",
                "{\"coveredResources\":[\"cpu\"],\"flavors\":[{\"resources\":[1,2]}]}", NULL,
                CEL_FALSE);
    const char *unique = "size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0";
    assert_rule(unique, "[{\"a\":1},{\"a\":2}]", NULL, CEL_TRUE);
    assert_rule(unique, "[{\"a\":1},{\"a\":1}]", NULL, CEL_FALSE);
    const char *host = "size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || "
                       "self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname'";
    assert_rule(host, "[{\"nodeLabel\":\"kubernetes.io/hostname\"},{\"nodeLabel\":\"rack\"}]", NULL,
                CEL_FALSE);
    assert_rule("self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
                "[{\"effect\":\"Never\"}]", NULL, CEL_FALSE);
    assert_rule("self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true)",
                "[{\"operator\":\"Exists\",\"value\":\"v\"}]", NULL, CEL_FALSE);
    assert_rule("!has(self.topologyName) || self.nodeLabels.size() >= 1",
                "{\"topologyName\":\"t\",\"nodeLabels\":{}}", NULL, CEL_FALSE);
    assert_rule("has(self.minCount) ? self.minCount <= self.count : true",
                "{\"minCount\":3,\"count\":2}", NULL, CEL_FALSE);
    assert_rule("[has(self.universal),has(self.individual)].filter(x,x==true).size() == 1",
                "{\"universal\":1,\"individual\":[1]}", NULL, CEL_FALSE);
    assert_rule("has(self.universal) != has(self.individual)", "{\"universal\":1}", NULL, CEL_TRUE);
    const char *met = "((has(oldSelf.status) && oldSelf.status.conditions.exists(c, c.type == "
                      "'Admitted' && c.status == 'True')))?((has(oldSelf.spec.maximumExecution"
                      "TimeSeconds)?oldSelf.spec.maximumExecutionTimeSeconds:0) ==  "
                      "(has(self.spec.maximumExecutionTimeSeconds)?self.spec.maximum"
                      "ExecutionTimeSeconds:0)):true";
    const char *admitted = "{\"spec\":{\"maximumExecutionTimeSeconds\":5},\"status\":{"
                           "\"conditions\":[{\"type\":\"Admitted\",\"status\":\"True\"}]}}";
    assert_rule(met, "{\"spec\":{}}", admitted, CEL_FALSE);
    assert_rule(met, admitted, admitted, CEL_TRUE);
}

static void test_cel_operators(void **state)
{
    assert_rule("1 + 2 * 3 == 7 && 7 / 2 == 3 && 7 % 2 == 1 && -(1) < 0", "null", NULL, CEL_TRUE);
    assert_rule("1.5 + 1.5 == 3.0 && 2 == 2.0", "null", NULL, CEL_TRUE);
    assert_rule("'a' + \"b\" == 'ab' && 'abc' > 'abd' == false", "null", NULL, CEL_TRUE);
    assert_rule("[1, 2] + [3] == [1, 2, 3] && 2 in [1, 2]", "null", NULL, CEL_TRUE);
    assert_rule("self.m['a.b'] == 1 && 'a.b' in self.m", "{\"m\":{\"a.b\":1}}", NULL, CEL_TRUE);
    assert_rule("self.exists_one(x, x > 1) && self.map(x, x * 2) == [2, 4, 6]", "[1,2,3]", NULL,
                CEL_FALSE);
    assert_rule("self.map(x, x * 2) == [2, 4, 6]", "[1,2,3]", NULL, CEL_TRUE);
    assert_rule("self.s.startsWith('ab') && self.s.endsWith('yz') && self.s.contains('m') && "
                "self.s.matches('^ab[a-z]+\\\\d$') == false && size(self.s) == 7",
                "{\"s\":\"abcmxyz\"}", NULL, CEL_TRUE);
    assert_rule("self.s.matches('^[a-z]+\\\\d$')", "{\"s\":\"ab7\"}", NULL, CEL_TRUE);
    assert_rule("int('42') == 42 && string(42) == '42' && int(2.9) == 2", "null", NULL, CEL_TRUE);
    assert_rule("size('日本') == 2", "null", NULL, CEL_TRUE);
    assert_rule("self.all(k, k.startsWith('x'))", "{\"xa\":1,\"xb\":2}", NULL, CEL_TRUE);
}

/* A missing field is an error, absorbed by && and || as CEL absorbs it. */
static void test_cel_errors(void **state)
{
    char why[300];
    assert_int_equal(run("self.missing == 1", "{}", NULL, why, sizeof(why)), CEL_ERROR);
    assert_string_equal(why, "no such key: missing");
    assert_rule("false && self.missing == 1", "{}", NULL, CEL_FALSE);
    assert_rule("self.missing == 1 && false", "{}", NULL, CEL_FALSE);
    assert_rule("self.missing == 1 || true", "{}", NULL, CEL_TRUE);
    assert_int_equal(run("self.missing == 1 || false", "{}", NULL, why, sizeof(why)), CEL_ERROR);
    assert_int_equal(run("self[3] == 1", "[1]", NULL, why, sizeof(why)), CEL_ERROR);
    assert_string_equal(why, "index out of bounds: 3");
    assert_int_equal(run("1 / 0 == 1", "null", NULL, why, sizeof(why)), CEL_ERROR);
    assert_string_equal(why, "division by zero");
    assert_int_equal(run("'a' < 1", "null", NULL, why, sizeof(why)), CEL_ERROR);
    assert_string_equal(why, "no such overload: string < int");
    assert_int_equal(run("self", "1", NULL, why, sizeof(why)), CEL_ERROR);
    assert_string_equal(why, "the rule returned int, not bool");
    assert_rule("self.exists(x, x.a == 1)", "[{\"b\":1},{\"a\":1}]", NULL, CEL_TRUE);
}

/* What is outside the subset does not compile, and says what it is. */
static void test_cel_compile_refusals(void **state)
{
    static const struct {
        const char *rule;
        int code;
        const char *why;
    } cases[] = {
        {"quantity(self.q).isInteger()", ERR_UNSUPPORTED, "the function quantity"},
        {"self.x.lowerAscii() == 'a'", ERR_UNSUPPORTED, "the function lowerAscii"},
        {"self.all(k, v, v > 0)", ERR_UNSUPPORTED, "the three-argument form of all"},
        {"{'a': 1}.size() == 1", ERR_UNSUPPORTED, "map literals"},
        {"other == 1", ERR_UNSUPPORTED, "the identifier other"},
        {"b'abc' == self", ERR_UNSUPPORTED, "bytes literals"},
        {"self == ", ERR_PARSE, "unexpected end of rule at offset 8"},
        {"self == 'abc", ERR_PARSE, "unterminated string literal"},
        {"(self", ERR_PARSE, "expected ')' at offset 5"},
        {"has(self)", ERR_PARSE, "has() takes one field selection, as in has(self.field)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cel *c = NULL;
        char why[300];
        int rc = cel_compile(cases[i].rule, &c, why, sizeof(why));
        if (rc != cases[i].code || strcmp(why, cases[i].why))
            fail_msg("%s: got %d %s", cases[i].rule, rc, why);
        assert_null(c);
    }
    struct cel *c = NULL;
    char why[300];
    assert_int_equal(cel_compile("oldSelf.a == self.a", &c, why, sizeof(why)), 0);
    assert_true(cel_uses_old(c));
    cel_free(c);
}

/* A rule cannot be made to run long: quadratic rules on big lists stop. */
static void test_cel_budget(void **state)
{
    struct cel *c = NULL;
    char why[300];
    assert_int_equal(cel_compile("size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0", &c,
                                 why, sizeof(why)),
                     0);
    json_t *big = json_array();
    for (int i = 0; i < 5000; i++)
        json_array_append_new(big, json_integer(i));
    long budget = 100000000;
    assert_int_equal(cel_eval(c, big, NULL, &budget, why, sizeof(why)), CEL_ERROR);
    assert_string_equal(why, "operation cancelled: actual cost limit exceeded");
    budget = 1000;
    json_t *small = parse("[1,2,3]");
    assert_int_equal(cel_eval(c, small, NULL, &budget, why, sizeof(why)), CEL_TRUE);
    budget = 10;
    assert_int_equal(cel_eval(c, big, NULL, &budget, why, sizeof(why)), CEL_ERROR);
    assert_string_equal(why, "validation failed due to running out of cost budget, no further "
                             "validation rules will be run");
    json_decref(big);
    json_decref(small);
    cel_free(c);
}

static void test_cel_regex(void **state)
{
    regex_t rx;
    char why[200];
    assert_int_equal(cel_regex("^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$", &rx, why, sizeof(why)), 0);
    assert_int_equal(regexec(&rx, "WorkloadPriorityClass", 0, NULL, 0), 0);
    regfree(&rx);
    assert_int_equal(cel_regex("^\\d+(?:\\.\\d+)?\\s*$", &rx, why, sizeof(why)), 0);
    assert_int_equal(regexec(&rx, "12.5 ", 0, NULL, 0), 0);
    assert_int_not_equal(regexec(&rx, "a12", 0, NULL, 0), 0);
    regfree(&rx);
    assert_int_equal(cel_regex("(", &rx, why, sizeof(why)), ERR_UNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cel_kueue_rules), cmocka_unit_test(test_cel_operators),
        cmocka_unit_test(test_cel_errors),      cmocka_unit_test(test_cel_compile_refusals),
        cmocka_unit_test(test_cel_budget),      cmocka_unit_test(test_cel_regex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
