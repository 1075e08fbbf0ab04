/* main.c - the test runner: runs every suite (or those named on the command
 * line) and ends with the harness's summary line. */
#include "suites.h"
#include "zl_runner.h"
#include "zl_test.h"

#define DECLARE(name) void zl_suite_##name(void);
ZL_SUITE_LIST(DECLARE)

#define ENTRY(name) {#name, zl_suite_##name},
static const zl_named suites[] = {ZL_SUITE_LIST(ENTRY)};

int main(int argc, char **argv)
{
    zl_run_named(suites, (int)(sizeof suites / sizeof suites[0]), "suite", argc, argv);
    return zl_test_summary();
}
