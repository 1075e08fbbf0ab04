/* bench_move.c - cost of one movement command of the reference FPS rules
 * (fps_run_command): the price of every prediction replay and server step. */
#include <string.h>

#include "fps.h"
#include "zl_bench.h"

#define SCRIPT 64

typedef struct move_bench {
    fps_player start, player;
    zl_usercmd cmds[SCRIPT];
} move_bench;

/* Running, turning and strafing through the arena with a jump now and
 * then: walls, crates and stairs get hit, so sliding and stepping count. */
static void make_script(move_bench *b)
{
    fps_game g;
    int i;
    fps_game_init(&g);
    memset(&b->start, 0, sizeof b->start);
    fps_player_spawn(&g, &b->start);
    for (i = 0; i < SCRIPT; i++) {
        zl_usercmd *c = &b->cmds[i];
        memset(c, 0, sizeof *c);
        c->msec = 16;
        c->forward = 127;
        c->side = (int8_t)((i & 16) ? 60 : -60);
        c->yaw = (zl_angle)(i * 1500);
        c->buttons = (i % 32 == 0) ? FPS_BUTTON_JUMP : 0;
    }
}

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
        fps_run_command(&b->player, &b->cmds[i % SCRIPT], &b->player, 0, NULL);
    zl_bench_sink += (uint32_t)b->player.origin.x;
}

void zl_bench_move(void)
{
    static move_bench b;
    make_script(&b);
    zl_bench_measure("move", "fps_run_command (16 ms)", body, reset, &b);
}
