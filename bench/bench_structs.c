/* bench_structs.c - the static bytes of each main struct in the benchmark's
 * own configuration (bench/zl_user_config.h), with the capacities behind them. */
#include "zl_bench.h"
#include "zl_client.h"
#include "zl_conditioner.h"
#include "zl_server.h"

#define ROW(type) {#type, sizeof(type)}

void zl_bench_structs(void)
{
    static const struct {
        const char *name;
        size_t bytes;
    } rows[] = {ROW(zl_server),         ROW(zl_client),          ROW(zl_snapshot_world),
                ROW(zl_snapshot_client), ROW(zl_snapshot_receiver), ROW(zl_snapshot_frame),
                ROW(zl_lagcomp),        ROW(zl_predict),         ROW(zl_interp_history),
                ROW(zl_link),           ROW(zl_cmdbuf),          ROW(zl_conditioner)};
    size_t i;
    zl_bench_note("memory", "capacities: %d clients, %d entities, %d-byte states, %d rewind ticks, "
                  "%d world ticks", ZL_MAX_CLIENTS, ZL_MAX_ENTITIES, ZL_STATE_MAX,
                  ZL_LAGCOMP_TICKS, ZL_SNAPSHOT_WORLD_TICKS);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        zl_bench_memory(rows[i].name, rows[i].bytes);
}
