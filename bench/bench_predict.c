/* bench_predict.c - cost of a reconciliation that finds a misprediction and
 * replays 8 or 32 commands with the FPS rules, and of predicting one command. */
#include <string.h>

#include "fps.h"
#include "zl_bench.h"
#include "zl_predict.h"

#define SCRIPT 64

typedef struct predict_bench {
    fps_game world;
    zl_game game;
    zl_predict pred;
    fps_player start;
    zl_usercmd cmds[SCRIPT];
    uint32_t window; /* commands ahead of each ack */
    zl_fx nudge;     /* alternates so the player does not drift */
} predict_bench;

static predict_bench b;

static int next_command(predict_bench *pb)
{
    zl_usercmd c = pb->cmds[zl_predict_newest(&pb->pred) % SCRIPT];
    c.sequence = zl_predict_newest(&pb->pred) + 1u;
    return zl_predict_command(&pb->pred, &c, NULL);
}

/* Running, turning and strafing through the arena, as bench_move. */
static void make_script(predict_bench *pb)
{
    int i;
    for (i = 0; i < SCRIPT; i++) {
        zl_usercmd *c = &pb->cmds[i];
        memset(c, 0, sizeof *c);
        c->msec = 16;
        c->forward = 127;
        c->side = (int8_t)((i & 16) ? 60 : -60);
        c->yaw = (zl_angle)(i * 1500);
        c->buttons = (i % 32 == 0) ? FPS_BUTTON_JUMP : 0;
    }
}

/* A fresh predictor with `window` commands waiting for their ack. */
static void reset(void *ctx)
{
    predict_bench *pb = (predict_bench *)ctx;
    zl_predict_settings s;
    uint32_t i;
    zl_predict_settings_default(&s);
    s.origin_field = 0; /* origin.x, y, z lead fps_player_schema */
    zl_predict_init(&pb->pred, &pb->game, &s, &pb->start);
    for (i = 0; i < pb->window; i++)
        next_command(pb);
    pb->nudge = 2048; /* 1/32 unit: the wire's step */
}

/* Each operation: one new command (as every client frame), then an ack
 * for the oldest one whose state is off by one wire step, so the whole
 * window is replayed. */
static void body_reconcile(void *ctx, uint32_t n)
{
    predict_bench *pb = (predict_bench *)ctx;
    fps_player server;
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++) {
        uint32_t ack = zl_predict_acked(&pb->pred) + 1u;
        next_command(pb);
        memcpy(&server, zl_predict_state_after(&pb->pred, ack), sizeof server);
        server.origin.x += pb->nudge;
        pb->nudge = -pb->nudge;
        acc += (uint32_t)zl_predict_reconcile(&pb->pred, ack, &server, (uint64_t)i * 16000u);
    }
    zl_bench_sink += acc;
}

/* One command predicted and at once acknowledged as right: the price of
 * every frame when nothing goes wrong. */
static void body_command(void *ctx, uint32_t n)
{
    predict_bench *pb = (predict_bench *)ctx;
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++) {
        uint32_t ack = zl_predict_acked(&pb->pred) + 1u;
        next_command(pb);
        acc += (uint32_t)zl_predict_reconcile(&pb->pred, ack,
                                              zl_predict_state_after(&pb->pred, ack), 0);
    }
    zl_bench_sink += acc;
}

void zl_bench_predict(void)
{
    static const uint32_t windows[] = {8, 16, 32};
    uint64_t costs[3];
    size_t i;
    fps_game_init(&b.world);
    memset(&b.start, 0, sizeof b.start);
    fps_player_spawn(&b.world, &b.start);
    b.game = fps_game_interface(&b.world);
    make_script(&b);
    b.window = 8;
    zl_bench_measure("predict", "command + right ack (8 ahead)", body_command, reset, &b);
    for (i = 0; i < 3; i++) {
        static const char *names[] = {"command + reconcile, replay 8", "command + reconcile, replay 16",
                                      "command + reconcile, replay 32"};
        b.window = windows[i];
        costs[i] = zl_bench_measure("predict", names[i], body_reconcile, reset, &b);
    }
    zl_bench_growth("predict", windows, costs, 3);
    zl_bench_memory("zl_predict", sizeof(zl_predict));
}
