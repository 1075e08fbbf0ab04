/* main.c - the benchmark runner: runs every group (or those named on the
 * command line) and prints one table; CSV lines are mirrored for tools. */
#include "benches.h"
#include "zl_bench.h"
#include "zl_print.h"
#include "zl_runner.h"

#define DECLARE(name) void zl_bench_##name(void);
ZL_BENCH_LIST(DECLARE)

#define ENTRY(name) {#name, zl_bench_##name},
static const zl_named groups[] = {ZL_BENCH_LIST(ENTRY)};

int main(int argc, char **argv)
{
    zl_print("zerolag benchmarks (cost per operation in %s; median of batches)\n",
             zl_port_timer_unit());
    if (ZL_BENCH_EMULATED)
        zl_print("under emulation (qemu-user): times are the emulator's on the build machine, "
                 "not the target CPU's; no time is scored against a target\n");
    zl_run_named(groups, (int)(sizeof groups / sizeof groups[0]), "group", argc, argv);
    return 0;
}
