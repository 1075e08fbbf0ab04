/* bench_interp.c - cost of drawing a frame of other players from full 64 Hz
 * histories, 100 ms back, as a client frame draws them (bench_drawn). */
#include "bench_scene.h"
#include "zl_bench.h"

static void body(void *ctx, uint32_t n)
{
    bench_drawn *d = (bench_drawn *)ctx;
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++)
        acc += bench_drawn_frame(d, i);
    zl_bench_sink += acc;
}

void zl_bench_interp(void)
{
    static bench_drawn d;
    static const char *const names[] = {"16 entities per frame", "32 entities per frame",
                                        "64 entities per frame"};
    static const uint32_t sizes[3] = {16, 32, 64};
    uint64_t costs[3];
    int i;
    bench_drawn_fill(&d);
    for (i = 0; i < 3; i++) {
        d.drawn = sizes[i];
        costs[i] = zl_bench_measure("interp", names[i], body, NULL, &d);
    }
    zl_bench_growth("interp", sizes, costs, 3);
    zl_bench_derived("interp", "per entity, 16 drawn", costs[0] / sizes[0]);
    zl_bench_derived("interp", "per entity, 64 drawn", costs[2] / sizes[2]);
    /* Each target is stated for one kind of machine. */
    if (zl_port_timer_exact())
        zl_bench_target("interp", "Cortex-M3 one entity (16 drawn)", costs[0] / sizes[0], 600u);
    else
        zl_bench_target("interp", "host one entity (64 drawn)", costs[2] / sizes[2], 40u);
}
