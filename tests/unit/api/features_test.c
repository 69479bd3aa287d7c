/* Unit tests for api/features.c: Kueue's gates, their defaults, the
 * --feature-gates text and the Configuration's featureGates map, with
 * component-base's messages asserted verbatim. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/features.h"
#include "base/err.h"

static void test_defaults(void **state)
{
    struct fg_gates g = {0};
    assert_true(fg_gates_enabled(&g, FG_PARTIAL_ADMISSION));
    assert_true(fg_gates_enabled(&g, FG_ADMISSION_GATED_BY));
    assert_true(fg_gates_enabled(&g, FG_TOPOLOGY_AWARE_SCHEDULING));
    assert_true(fg_gates_enabled(&g, FG_WORKLOAD_VALIDATE_RESOURCES_ARE_NON_NEGATIVE));
    assert_false(fg_gates_enabled(&g, FG_CONCURRENT_ADMISSION));
    assert_false(fg_gates_enabled(&g, FG_PRIORITY_BOOST));
    assert_false(fg_gates_enabled(&g, FG_REJECT_UPDATES_TO_CQ_WITH_INVALID_ON_FLAVORS));
    assert_string_equal(fg_name(FG_TAS_PROFILE_MIXED), "TASProfileMixed");
    assert_int_equal(fg_stage(FG_TLS_OPTIONS), FG_GA);
    /* The process's gates start at the defaults. */
    fg_use(NULL);
    assert_true(fg_enabled(FG_PARTIAL_ADMISSION));
    assert_false(fg_enabled(FG_PRIORITY_BOOST));
}

static void test_parse(void **state)
{
    struct fg_gates g = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(fg_gates_parse(&g, " PriorityBoost = true ,PartialAdmission=F,,", &e), 0);
    assert_true(fg_gates_enabled(&g, FG_PRIORITY_BOOST));
    assert_false(fg_gates_enabled(&g, FG_PARTIAL_ADMISSION));
    /* A later value of a gate wins. */
    assert_int_equal(fg_gates_parse(&g, "PriorityBoost=true,PriorityBoost=0", &e), 0);
    assert_false(fg_gates_enabled(&g, FG_PRIORITY_BOOST));
    assert_int_equal(fg_gates_parse(&g, "", &e), 0);
}

static void expect_refused(const char *text, const char *message)
{
    struct fg_gates g = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(fg_gates_parse(&g, "PriorityBoost=true", &e), 0);
    assert_int_equal(fg_gates_parse(&g, text, &e), ERR_INVALID);
    assert_string_equal(e.message, message);
    /* Nothing of a refused text applies. */
    assert_true(fg_gates_enabled(&g, FG_PRIORITY_BOOST));
    assert_true(fg_gates_enabled(&g, FG_TOPOLOGY_AWARE_SCHEDULING));
}

static void test_refused(void **state)
{
    expect_refused("Nope=true", "unrecognized feature gate: Nope");
    expect_refused("PriorityBoost", "missing bool value for PriorityBoost");
    expect_refused("PriorityBoost=maybe", "invalid value of PriorityBoost=maybe, err: "
                                          "strconv.ParseBool: parsing \"maybe\": invalid syntax");
    expect_refused("TLSOptions=false",
                   "cannot set feature gate TLSOptions to false, feature is locked to true");
    expect_refused("PriorityBoost=false,ElasticJobsViaWorkloadSlicesWithTAS=true,"
                   "ElasticJobsViaWorkloadSlices=false",
                   "ElasticJobsViaWorkloadSlicesWithTAS is enabled, but depends on features "
                   "that are disabled: [ElasticJobsViaWorkloadSlices]");
    /* Gates that depend on TAS and are on by default keep it on. */
    expect_refused("TopologyAwareScheduling=false",
                   "[TASFailedNodeReplacement is enabled, but depends on features that are "
                   "disabled: [TopologyAwareScheduling], TASFailedNodeReplacementFailFast is "
                   "enabled, but depends on features that are disabled: [TopologyAwareScheduling],"
                   " TASHandleOverlappingFlavors is enabled, but depends on features that are "
                   "disabled: [TopologyAwareScheduling], TASMultiLayerTopology is enabled, but "
                   "depends on features that are disabled: [TopologyAwareScheduling], "
                   "TASProfileMixed is enabled, but depends on features that are disabled: "
                   "[TopologyAwareScheduling], TASRecomputeAssignmentWithinSchedulingCycle is "
                   "enabled, but depends on features that are disabled: "
                   "[TopologyAwareScheduling], TASReplaceNodeOnNodeTaints is enabled, but "
                   "depends on features that are disabled: [TopologyAwareScheduling], "
                   "TASReplaceNodeOnPodTermination is enabled, but depends on features that are "
                   "disabled: [TopologyAwareScheduling]]");
}

static void test_all_alpha_beta(void **state)
{
    struct fg_gates g = {0};
    struct err e;
    err_init(&e);
    /* An explicit value wins over AllAlpha, whatever the order. */
    assert_int_equal(fg_gates_parse(&g, "PriorityBoost=false,AllAlpha=true", &e), 0);
    assert_true(fg_gates_enabled(&g, FG_CONCURRENT_ADMISSION));
    assert_false(fg_gates_enabled(&g, FG_PRIORITY_BOOST));
    assert_true(fg_gates_enabled(&g, FG_PARTIAL_ADMISSION)); /* beta: untouched */
    memset(&g, 0, sizeof(g));
    assert_int_equal(
        fg_gates_parse(&g, "AllBeta=false,FlavorFungibility=true,KueueDRAIntegration=true", &e), 0);
    assert_false(fg_gates_enabled(&g, FG_PARTIAL_ADMISSION));
    assert_true(fg_gates_enabled(&g, FG_FLAVOR_FUNGIBILITY));
}

static void test_load(void **state)
{
    struct fg_gates g;
    struct err e;
    err_init(&e);
    json_t *cfg = json_pack("{s:s,s:{s:b}}", "kind", "Configuration", "featureGates",
                            "ConcurrentAdmission", 1);
    assert_int_equal(fg_gates_load(&g, NULL, cfg, &e), 0);
    assert_true(fg_gates_enabled(&g, FG_CONCURRENT_ADMISSION));
    assert_int_equal(fg_gates_load(&g, "PriorityBoost=true", NULL, &e), 0);
    assert_true(fg_gates_enabled(&g, FG_PRIORITY_BOOST));
    assert_false(fg_gates_enabled(&g, FG_CONCURRENT_ADMISSION));
    assert_int_equal(fg_gates_load(&g, "PriorityBoost=true", cfg, &e), ERR_INVALID);
    assert_string_equal(e.message, "feature gates for CLI and configuration cannot both specified");
    json_object_set_new(json_object_get(cfg, "featureGates"), "Bad", json_string("yes"));
    err_init(&e);
    assert_int_equal(fg_gates_load(&g, NULL, cfg, &e), ERR_INVALID);
    assert_string_equal(e.message, "featureGates.Bad must be true or false");
    json_decref(cfg);
    /* Installed for the process. */
    assert_int_equal(fg_gates_load(&g, "ConcurrentAdmission=true", NULL, &e), 0);
    fg_use(&g);
    assert_true(fg_enabled(FG_CONCURRENT_ADMISSION));
    fg_use(NULL);
    assert_false(fg_enabled(FG_CONCURRENT_ADMISSION));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults), cmocka_unit_test(test_parse),
        cmocka_unit_test(test_refused),  cmocka_unit_test(test_all_alpha_beta),
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
