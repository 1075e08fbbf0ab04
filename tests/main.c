/* main.c - the test runner: runs every suite (or those named on the command
 * line) and ends with the harness's summary line. */
#include <string.h>

#include "suites.h"
#include "zl_print.h"
#include "zl_test.h"

#define DECLARE(name) void zl_suite_##name(void);
ZL_SUITE_LIST(DECLARE)

typedef struct suite {
    const char *name;
    void (*run)(void);
} suite;

#define ENTRY(name) {#name, zl_suite_##name},
static const suite suites[] = {ZL_SUITE_LIST(ENTRY)};

static int wanted(const char *name, int argc, char **argv)
{
    int i;
    if (argc < 2)
        return 1;
    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    size_t i;
    for (i = 0; i < sizeof suites / sizeof suites[0]; i++) {
        if (!wanted(suites[i].name, argc, argv))
            continue;
        zl_print("suite %s\n", suites[i].name);
        suites[i].run();
    }
    return zl_test_summary();
}
