/* Unit tests for the job framework's knowledge of owners: a kind of
 * integrations.externalFrameworks ("Kind.version.group") is matched
 * against an owner reference's apiVersion and kind, and named as Kueue
 * names its Workloads; where the prebuilt Workload's name is read from;
 * the default WorkloadPriorityClass, under their feature gates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/features.h"
#include "api/objects.h"
#include "base/err.h"
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

/* Use the gates of the --feature-gates text cli (Kueue's defaults else). */
static void use_gates(const char *cli)
{
    struct fg_gates g;
    struct err e;
    err_init(&e);
    assert_int_equal(fg_gates_load(&g, cli, NULL, &e), 0);
    fg_use(&g);
}

static json_t *object(const char *label, const char *annotation)
{
    json_t *o = json_pack("{s:{s:s}}", "metadata", "name", "j");
    json_t *meta = json_object_get(o, "metadata");
    if (label)
        json_object_set_new(meta, "labels", json_pack("{s:s}", JF_PREBUILT_LABEL, label));
    if (annotation)
        json_object_set_new(meta, "annotations", json_pack("{s:s}", JF_PREBUILT_LABEL, annotation));
    return o;
}

static void test_jf_prebuilt_name(void **state)
{
    (void)state;
    char long_name[80];
    memset(long_name, 'w', 70);
    long_name[70] = '\0';
    json_t *none = object(NULL, NULL), *label = object("l", NULL), *ann = object(NULL, "a");
    json_t *both = object("l", "a"), *empty = object("l", ""), *lng = object("l", long_name);
    /* WorkloadIdentifierAnnotations on (the default): the annotation, else
     * the label. */
    fg_use(NULL);
    assert_null(jf_prebuilt_name(none));
    assert_string_equal(jf_prebuilt_name(label), "l");
    assert_string_equal(jf_prebuilt_name(ann), "a");
    assert_string_equal(jf_prebuilt_name(both), "a");
    assert_string_equal(jf_prebuilt_name(empty), "l");
    char wname[256];
    jf_workload_name_for(&(struct jf_integration){.kind = "Job", .group = "batch"}, ann, wname,
                         sizeof(wname));
    assert_string_equal(wname, "a");
    /* Off: the label, else an annotation too long to be a label value. */
    use_gates("WorkloadIdentifierAnnotations=false");
    assert_null(jf_prebuilt_name(ann));
    assert_string_equal(jf_prebuilt_name(both), "l");
    json_t *only_long = object(NULL, long_name);
    assert_string_equal(jf_prebuilt_name(only_long), long_name);
    assert_string_equal(jf_prebuilt_name(lng), "l");
    fg_use(NULL);
    json_decref(only_long);
    json_decref(none);
    json_decref(label);
    json_decref(ann);
    json_decref(both);
    json_decref(empty);
    json_decref(lng);
}

static void test_jf_default_priority_class(void **state)
{
    (void)state;
    fg_use(NULL);
    json_t *o = json_pack("{s:{s:s}}", "metadata", "name", "j");
    /* No class named "default": unchanged. */
    assert_false(jf_default_priority_class(o, false));
    assert_null(jf_label(o, JF_PRIORITY_LABEL));
    assert_true(jf_default_priority_class(o, true));
    assert_string_equal(jf_label(o, JF_PRIORITY_LABEL), "default");
    /* A class already named is kept; an empty one is none. */
    json_t *named = json_pack("{s:{s:{s:s}}}", "metadata", "labels", JF_PRIORITY_LABEL, "high");
    assert_false(jf_default_priority_class(named, true));
    assert_string_equal(jf_label(named, JF_PRIORITY_LABEL), "high");
    json_t *blank = json_pack("{s:{s:{s:s}}}", "metadata", "labels", JF_PRIORITY_LABEL, "");
    assert_true(jf_default_priority_class(blank, true));
    assert_string_equal(jf_label(blank, JF_PRIORITY_LABEL), "default");
    /* The gate off: unchanged. */
    use_gates("WorkloadPriorityClassDefaulting=false");
    json_t *off = json_pack("{s:{s:s}}", "metadata", "name", "j");
    assert_false(jf_default_priority_class(off, true));
    assert_null(jf_label(off, JF_PRIORITY_LABEL));
    fg_use(NULL);
    json_decref(o);
    json_decref(named);
    json_decref(blank);
    json_decref(off);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_owner),
        cmocka_unit_test(test_jf_prebuilt_name),
        cmocka_unit_test(test_jf_default_priority_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
