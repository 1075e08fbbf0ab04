/* main.c - the benchmark runner: runs every group (or those named on the
 * command line) and prints one table; CSV lines are mirrored for tools. */
#include <string.h>

#include "benches.h"
#include "zl_bench.h"
#include "zl_print.h"

#define DECLARE(name) void zl_bench_##name(void);
ZL_BENCH_LIST(DECLARE)

typedef struct group {
    const char *name;
    void (*run)(void);
} group;

#define ENTRY(name) {#name, zl_bench_##name},
static const group groups[] = {ZL_BENCH_LIST(ENTRY)};

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
    zl_print("zerolag benchmarks (cost per operation, %s; median of batches)\n",
             zl_bench_timer_unit());
    for (i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (wanted(groups[i].name, argc, argv))
            groups[i].run();
    return 0;
}
