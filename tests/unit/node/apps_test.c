/* Unit tests for the apps controllers' naming: the pod-template-hash
 * (Kubernetes' SafeEncodeString alphabet, stable, changed by the template
 * and the collision count) and the ordinals of a StatefulSet's Pods. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "node/apps.h"

/* SafeEncodeString maps each byte to its alphabet by value mod 27. */
static void test_safe_encode(void **state)
{
    (void)state;
    char s[] = "0123456789";
    apps_safe_encode(s);
    /* '0' is 48: 48 % 27 = 21 -> '4'; '9' is 57: 3 -> 'f'. */
    assert_string_equal(s, "456789bcdf");
}

static void test_template_hash(void **state)
{
    (void)state;
    json_t *a = json_pack("{s:{s:{s:s}},s:{s:[{s:s,s:s}]}}", "metadata", "labels", "app", "web",
                          "spec", "containers", "name", "c", "image", "busybox");
    json_t *b = json_deep_copy(a);
    char *ha = apps_template_hash(a, NULL), *hb = apps_template_hash(b, NULL);
    assert_string_equal(ha, hb); /* the same template, the same hash */
    assert_true(strlen(ha) >= 1 && strlen(ha) <= 10);
    assert_int_equal(strspn(ha, "bcdfghjklmnpqrstvwxz2456789"), strlen(ha));
    json_object_set_new(json_object_get(json_object_get(b, "metadata"), "labels"), "app",
                        json_string("api"));
    char *hc = apps_template_hash(b, NULL);
    assert_string_not_equal(ha, hc); /* a new template, a new ReplicaSet */
    int64_t one = 1;
    char *hd = apps_template_hash(a, &one);
    assert_string_not_equal(ha, hd); /* a collision gives another name */
    free(ha);
    free(hb);
    free(hc);
    free(hd);
    json_decref(a);
    json_decref(b);
}

static void test_ordinal(void **state)
{
    (void)state;
    assert_int_equal(apps_ordinal("web", "web-0"), 0);
    assert_int_equal(apps_ordinal("web", "web-12"), 12);
    assert_int_equal(apps_ordinal("web", "web-"), -1);
    assert_int_equal(apps_ordinal("web", "web-01"), -1);
    assert_int_equal(apps_ordinal("web", "web-x"), -1);
    assert_int_equal(apps_ordinal("web", "web-1-2"), -1);
    assert_int_equal(apps_ordinal("web", "webby-1"), -1);
    assert_int_equal(apps_ordinal("web-1", "web-1-3"), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_safe_encode),
        cmocka_unit_test(test_template_hash),
        cmocka_unit_test(test_ordinal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
