/* bench_move.c - cost of one movement command of the reference FPS rules
 * (fps_run_command): the price of every prediction replay and server step. */
#include <string.h>

#include "bench_scene.h"
#include "zl_bench.h"

typedef struct move_bench {
    fps_player start, player;
    zl_usercmd cmds[BENCH_SCRIPT];
} move_bench;

static void reset(void *ctx)
{
    move_bench *b = (move_bench *)ctx;
    b->player = b->start;
}

static void body(void *ctx, uint32_t n)
{
    move_bench *b = (move_bench *)ctx;
    uint32_t i;
    for (i = 0; i < n; i++)
        fps_run_command(&b->player, &b->cmds[i % BENCH_SCRIPT], &b->player, 0, NULL);
    zl_bench_sink += (uint32_t)b->player.origin.x;
}

void zl_bench_move(void)
{
    static move_bench b;
    fps_game g;
    fps_game_init(&g);
    memset(&b.start, 0, sizeof b.start);
    fps_player_spawn(&g, &b.start);
    bench_script(b.cmds);
    zl_bench_measure("move", "fps_run_command (16 ms)", body, reset, &b);
}
