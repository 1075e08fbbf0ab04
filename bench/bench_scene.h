/* bench_scene.h - scenes several benchmark groups share: a scripted run
 * through the arena, a predictor with commands in flight, drawn players. */
#ifndef BENCH_SCENE_H
#define BENCH_SCENE_H

#include "fps.h"
#include "zl_interp.h"
#include "zl_predict.h"

/* Commands in the script; it repeats. */
#define BENCH_SCRIPT 64

/* Running, turning and strafing through the arena with a jump now and
 * then, 16 ms each: walls, crates and stairs get hit, so sliding and
 * stepping count. */
void bench_script(zl_usercmd cmds[BENCH_SCRIPT]);

/* A client's predictor running the script from a spawn point. */
typedef struct bench_predictor {
    fps_game world;
    zl_game game;
    zl_predict pred;
    fps_player start;
    zl_schema_plan plan; /* the player schema, prepared as a client does */
    zl_usercmd cmds[BENCH_SCRIPT];
    uint32_t window; /* commands ahead of each ack */
    zl_fx nudge;     /* alternates so the player does not drift */
} bench_predictor;

/* The world, the spawn and the script; then set window and reset. */
void bench_predictor_init(bench_predictor *p);
/* A setup callback (ctx: a bench_predictor): a fresh predictor with
 * `window` commands waiting for their ack. */
void bench_predictor_reset(void *ctx);
/* Predicts the next command of the script. */
int bench_predictor_command(bench_predictor *p);
/* One frame whose ack says the prediction was right (the usual frame): a
 * new command, then the oldest pending one acknowledged with the very
 * state predicted, so nothing is replayed. Returns what reconcile returned. */
int bench_predictor_hit(bench_predictor *p);
/* One frame whose ack finds a misprediction: a new command, then an ack
 * for the oldest pending one whose state is off by one wire step, so the
 * whole window is replayed. Returns what reconcile returned. */
int bench_predictor_miss(bench_predictor *p, uint64_t now_us);

/* Most players drawn per frame. */
#define BENCH_DRAWN_MAX 64

/* Other players drawn from full 64 Hz histories, 100 ms back, as a client
 * frame draws them: one zl_interp_frame, the schema prepared. */
typedef struct bench_drawn {
    zl_schema_plan plan;
    zl_interp_history hist[BENCH_DRAWN_MAX];
    zl_interp_settings settings;
    uint64_t render_us;
    uint32_t drawn; /* players per frame */
    fps_player out[BENCH_DRAWN_MAX];
} bench_drawn;

/* Fills every history; then set drawn. */
void bench_drawn_fill(bench_drawn *d);
/* Draws one frame (`frame` varies the render time a little): samples each
 * of the `drawn` players. Returns a value to keep alive. */
uint32_t bench_drawn_frame(bench_drawn *d, uint32_t frame);

#endif
