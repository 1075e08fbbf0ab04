/* bench_lagcomp.c - one lag-compensated shot among 64 players with 1 s of
 * history at 128 Hz: broadphase against rewinding everyone, and recording. */
#include <string.h>

#include "fps.h"
#include "zl_bench.h"
#include "zl_print.h"
#include "zl_lagcomp.h"

#define PLAYERS ZL_MAX_CLIENTS
#define TICK_US 7813u /* 128 Hz */

typedef struct lagcomp_bench {
    fps_game game_state;
    zl_game game;
    zl_lagcomp_time when;
    zl_vec3 eye, end;
    uint32_t tick;
    fps_player players[PLAYERS];
    zl_lagcomp lc;
} lagcomp_bench;

/* Everyone on a grid across the arena, strafing to and fro at up to
 * 320 units/s, the odd ones crouched. */
static void move(lagcomp_bench *b, uint32_t tick)
{
    int k;
    for (k = 0; k < PLAYERS; k++) {
        fps_player *p = &b->players[k];
        int32_t phase = (int32_t)((tick + (uint32_t)k * 7u) % 128u);
        int32_t sway = phase < 64 ? phase : 128 - phase; /* 0..64 ticks */
        p->origin.x = ZL_FX_INT(-875 + (k % 8) * 250);
        p->origin.y = ZL_FX_INT(-875 + (k / 8) * 250) + sway * ZL_FX_RATIO(5, 2);
        p->flags = (uint8_t)((k & 1) ? FPS_PF_CROUCHED : 0);
        zl_schema_quantize(&fps_player_schema, p);
    }
}

static void build(lagcomp_bench *b)
{
    fps_player target;
    zl_box body;
    int k;
    fps_game_init(&b->game_state);
    b->game = fps_game_interface(&b->game_state);
    zl_lagcomp_init(&b->lc, &b->game, TICK_US, NULL);
    for (k = 0; k < PLAYERS; k++) {
        memset(&b->players[k], 0, sizeof b->players[k]);
        fps_player_spawn(&b->game_state, &b->players[k]);
    }
    for (b->tick = 0; b->tick < ZL_LAGCOMP_TICKS; b->tick++) {
        move(b, b->tick);
        zl_lagcomp_record(&b->lc, b->tick, b->players, NULL, PLAYERS);
    }
    b->tick--;
    /* Player 0 shoots at player 9 (across the grid) as drawn 100 ms ago,
     * through the centre of its body. */
    zl_lagcomp_time_at(&b->lc, (uint64_t)b->tick * TICK_US - 100000u, &b->when);
    zl_lagcomp_state_at(&b->lc, &b->when, 9, &target);
    {
        zl_hitbox hb[2];
        fps_player_hitboxes(&target, 9, hb, 2);
        body = hb[0].box;
    }
    b->eye = fps_player_eye(&b->players[0]);
    b->end = zl_vec3_add(
        b->eye, zl_vec3_scale(zl_vec3_normalize(zl_vec3_sub(
                                  zl_vec3_make((body.min.x + body.max.x) / 2,
                                               (body.min.y + body.max.y) / 2,
                                               (body.min.z + body.max.z) / 2),
                                  b->eye)),
                              FPS_HITSCAN_RANGE));
}

static void shot_broadphase(void *ctx, uint32_t n)
{
    lagcomp_bench *b = (lagcomp_bench *)ctx;
    zl_trace tr;
    uint32_t i;
    for (i = 0; i < n; i++) {
        zl_lagcomp_trace(&b->lc, &b->when, &b->eye, &b->end, 0, &tr, NULL);
        zl_bench_sink += (uint32_t)tr.entity;
    }
}

static void shot_all(void *ctx, uint32_t n)
{
    lagcomp_bench *b = (lagcomp_bench *)ctx;
    zl_trace tr;
    uint32_t i;
    for (i = 0; i < n; i++) {
        zl_lagcomp_trace_all(&b->lc, &b->when, &b->eye, &b->end, 0, &tr, NULL);
        zl_bench_sink += (uint32_t)tr.entity;
    }
}

static void record(void *ctx, uint32_t n)
{
    lagcomp_bench *b = (lagcomp_bench *)ctx;
    uint32_t i;
    for (i = 0; i < n; i++)
        zl_lagcomp_record(&b->lc, ++b->tick, b->players, NULL, PLAYERS);
    zl_bench_sink += b->lc.latest;
}

void zl_bench_lagcomp(void)
{
    static lagcomp_bench b;
    zl_trace ta, tb;
    uint64_t broad, all;
    build(&b);
    /* Both must see the same thing: the target, hit. */
    zl_lagcomp_trace(&b.lc, &b.when, &b.eye, &b.end, 0, &ta, NULL);
    zl_lagcomp_trace_all(&b.lc, &b.when, &b.eye, &b.end, 0, &tb, NULL);
    zl_print("  %-12s shot at player %d: broadphase hits %d, rewind-all hits %d\n", "lagcomp",
                   9, (int)ta.entity, (int)tb.entity);
    broad = zl_bench_measure("lagcomp", "shot, broadphase (63 others)", shot_broadphase, NULL, &b);
    all = zl_bench_measure("lagcomp", "shot, rewind everyone (63)", shot_all, NULL, &b);
    zl_print("  %-12s broadphase is %u.%02ux faster than rewinding everyone\n", "lagcomp",
                   (unsigned)(all / (broad ? broad : 1)),
                   (unsigned)(all * 100u / (broad ? broad : 1) % 100u));
    zl_bench_measure("lagcomp", "record one tick (64 players)", record, NULL, &b);
    zl_bench_memory("zl_lagcomp", sizeof(zl_lagcomp));
}
