/* bench_lagcomp.c - one lag-compensated shot among 16, 64 and 256 players
 * with 1 s of history at 128 Hz: broadphase against rewinding everyone. */
#include <string.h>

#include "fps.h"
#include "zl_bench.h"
#include "zl_lagcomp.h"

#define TICK_US 7813u /* 128 Hz */
#define SIZES 3

typedef struct lagcomp_bench {
    fps_game game_state;
    zl_game game;
    int players;  /* in the game this run */
    int side;     /* of the square grid they stand on */
    int target;   /* the player shot at */
    zl_lagcomp_time when;
    zl_vec3 eye, end;
    uint32_t tick;
    fps_player player[ZL_MAX_CLIENTS];
    zl_lagcomp lc;
} lagcomp_bench;

ZL_STATIC_ASSERT(sizeof(lagcomp_bench) <= ZL_BENCH_ARENA_BYTES, lagcomp_bench_fits_arena);

/* Everyone on a square grid across the arena, strafing to and fro at up
 * to 320 units/s, the odd ones crouched. */
static void move(lagcomp_bench *b, uint32_t tick)
{
    int32_t spacing = 2000 / b->side;
    int k;
    for (k = 0; k < b->players; k++) {
        fps_player *p = &b->player[k];
        int32_t phase = (int32_t)((tick + (uint32_t)k * 7u) % 128u);
        int32_t sway = phase < 64 ? phase : 128 - phase; /* 0..64 ticks */
        p->origin.x = ZL_FX_INT(-1000 + spacing / 2 + (k % b->side) * spacing);
        p->origin.y = ZL_FX_INT(-1000 + spacing / 2 + (k / b->side) * spacing) +
                      sway * ZL_FX_RATIO(5, 2);
        p->flags = (uint8_t)((k & 1) ? FPS_PF_CROUCHED : 0);
        zl_schema_quantize(&fps_player_schema, p);
    }
}

static int grid_side(int players)
{
    int side = 1;
    while (side * side < players)
        side++;
    return side;
}

/* A full second of history, then player 0 aims at its diagonal neighbour
 * as drawn 100 ms ago, through the centre of its body. */
static void build(lagcomp_bench *b, int players)
{
    fps_player target;
    zl_hitbox hb[2];
    zl_box body;
    int k;
    b->players = players;
    b->side = grid_side(players);
    b->target = b->side + 1;
    fps_game_init(&b->game_state);
    b->game = fps_game_interface(&b->game_state);
    zl_lagcomp_init(&b->lc, &b->game, TICK_US, NULL);
    for (k = 0; k < players; k++) {
        memset(&b->player[k], 0, sizeof b->player[k]);
        fps_player_spawn(&b->game_state, &b->player[k]);
    }
    for (b->tick = 0; b->tick < ZL_LAGCOMP_TICKS; b->tick++) {
        move(b, b->tick);
        zl_lagcomp_record(&b->lc, b->tick, b->player, NULL, players);
    }
    b->tick--;
    zl_lagcomp_time_at(&b->lc, (uint64_t)b->tick * TICK_US - 100000u, &b->when);
    zl_lagcomp_state_at(&b->lc, &b->when, b->target, &target);
    fps_player_hitboxes(&target, b->target, hb, 2);
    body = hb[0].box;
    b->eye = fps_player_eye(&b->player[0]);
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
        zl_lagcomp_record(&b->lc, ++b->tick, b->player, NULL, b->players);
    zl_bench_sink += b->lc.latest;
}

void zl_bench_lagcomp(void)
{
    lagcomp_bench *b = (lagcomp_bench *)zl_bench_arena(sizeof *b);
    static const uint32_t sizes[SIZES] = {16, 64, 256};
    static const char *const broad_names[SIZES] = {"shot, broadphase, 16 players",
                                                   "shot, broadphase, 64 players",
                                                   "shot, broadphase, 256 players"};
    static const char *const all_names[SIZES] = {"shot, rewind all, 16 players",
                                                 "shot, rewind all, 64 players",
                                                 "shot, rewind all, 256 players"};
    static const char *const speedup_names[SIZES] = {"broadphase speed-up, 16 players",
                                                     "broadphase speed-up, 64 players",
                                                     "broadphase speed-up, 256 players"};
    static const char *const record_names[SIZES] = {"record one tick, 16 players",
                                                    "record one tick, 64 players",
                                                    "record one tick, 256 players"};
    uint64_t broad[SIZES], all[SIZES];
    int i, n = 0;
    for (i = 0; i < SIZES && sizes[i] <= ZL_MAX_CLIENTS; i++, n++) {
        zl_trace ta, tb;
        build(b, (int)sizes[i]);
        /* Both must see the same thing: the target, hit. */
        zl_lagcomp_trace(&b->lc, &b->when, &b->eye, &b->end, 0, &ta, NULL);
        zl_lagcomp_trace_all(&b->lc, &b->when, &b->eye, &b->end, 0, &tb, NULL);
        zl_bench_note("lagcomp", "%u players, shot at player %d: broadphase hits %d, rewind-all "
                      "hits %d", (unsigned)sizes[i], b->target, (int)ta.entity, (int)tb.entity);
        broad[i] = zl_bench_measure("lagcomp", broad_names[i], shot_broadphase, NULL, b);
        all[i] = zl_bench_measure("lagcomp", all_names[i], shot_all, NULL, b);
        zl_bench_ratio("lagcomp", speedup_names[i], all[i], broad[i]);
        zl_bench_measure("lagcomp", record_names[i], record, NULL, b);
    }
    if (n < SIZES)
        zl_bench_note("lagcomp", "no run with %u players: ZL_MAX_CLIENTS is %d in this build",
                      (unsigned)sizes[n], ZL_MAX_CLIENTS);
    zl_bench_growth("broadphase", sizes, broad, (size_t)n);
    zl_bench_growth("rewind all", sizes, all, (size_t)n);
    if (n > 1) {
        zl_bench_note("lagcomp", "target: 64 players, broadphase >= 5x faster than rewinding "
                      "everyone: %s", all[1] >= 5u * broad[1] ? "met" : "NOT met");
        if (!zl_port_timer_exact())
            zl_bench_target("lagcomp", "64 players, one shot on the host", broad[1], 1000u);
    }
}
