/* bench_replay.c - re-running a match record: the 60 s, 4-player record the
 * record suite replays on every port (tests/vectors/match_record.h), whole. */
#include "fps.h"
#include "zl_bench.h"
#include "zl_replay.h"
#include "../tests/vectors/match_record.h"

typedef struct replay_bench {
    fps_game game_state;
    zl_replay replay;
} replay_bench;

ZL_STATIC_ASSERT(sizeof(replay_bench) <= ZL_BENCH_ARENA_BYTES, replay_bench_fits_arena);

static void replay_once(void *ctx, uint32_t iterations)
{
    replay_bench *b = (replay_bench *)ctx;
    uint32_t i;
    for (i = 0; i < iterations; i++) {
        zl_game g;
        fps_game_init(&b->game_state);
        g = fps_game_interface(&b->game_state);
        if (zl_replay_init(&b->replay, &g, zl_match_record_bytes, sizeof zl_match_record_bytes,
                           NULL, NULL) == ZL_OK &&
            zl_replay_run(&b->replay) == ZL_OK)
            zl_bench_sink += b->replay.hash;
    }
}

void zl_bench_replay(void)
{
    replay_bench *b = (replay_bench *)zl_bench_arena(sizeof *b);
    uint64_t whole = zl_bench_measure("replay", "60s record", replay_once, NULL, b);
    zl_bench_derived("replay", "per tick", whole / ZL_MATCH_RECORD_TICKS);
    zl_bench_note("replay", "%u ticks, %u commands, hash 0x%08x (recorded 0x%08x)",
                  b->replay.ticks, b->replay.commands, b->replay.hash, ZL_MATCH_RECORD_HASH);
}
