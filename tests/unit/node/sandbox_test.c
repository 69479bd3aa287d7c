/* Unit tests for the sandbox's report of a pod that could not start,
 * worded as the container runtime words it (the kubelet shows it as the
 * StartError message). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "node/sandbox.h"

static void expect(int stage, int err, const char *what, const char *argv0, const char *want)
{
    struct sbx_report r = {SBX_FAILED, stage, err, 0, ""};
    strcpy(r.what, what);
    char buf[512];
    sbx_failure_message(&r, argv0, "/no/dir", buf, sizeof(buf));
    assert_string_equal(buf, want);
}

static void test_sbx_failure_message(void **state)
{
    expect(SBX_STAGE_EXEC, ENOENT, "nosuch", "nosuch",
           "unable to start container process: exec: \"nosuch\": executable file not found in "
           "$PATH");
    expect(SBX_STAGE_EXEC, ENOENT, "/bin/nosuch", "/bin/nosuch",
           "unable to start container process: exec: \"/bin/nosuch\": stat /bin/nosuch: no such "
           "file or directory");
    expect(SBX_STAGE_EXEC, EACCES, "/etc/passwd", "/etc/passwd",
           "unable to start container process: exec: \"/etc/passwd\": permission denied");
    expect(SBX_STAGE_CWD, ENOENT, "/no/dir", "true",
           "unable to start container process: chdir to cwd (\"/no/dir\") set in the container's "
           "workingDir failed: no such file or directory");
    expect(SBX_STAGE_SETUP, EPERM, "/proc", "true",
           "unable to set up the pod's sandbox: /proc: operation not permitted");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sbx_failure_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
