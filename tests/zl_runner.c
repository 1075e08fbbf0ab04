/* zl_runner.c - selection by name for the test and benchmark runners. */
#include "zl_runner.h"

#include <string.h>

#include "zl_print.h"

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

int zl_run_named(const zl_named *entries, int count, const char *label, int argc, char **argv)
{
    int i, ran = 0;
    for (i = 0; i < count; i++) {
        if (!wanted(entries[i].name, argc, argv))
            continue;
        zl_print("%s %s\n", label, entries[i].name);
        entries[i].run();
        ran++;
    }
    return ran;
}
