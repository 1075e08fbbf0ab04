/* bench_scene.c - the shared scenes: the scripted run, a predictor that
 * reconciles and replays, and interpolation histories of circling players. */
#include "bench_scene.h"

#include <string.h>

#define SNAPSHOT_US 15625u /* 64 Hz */

void bench_script(zl_usercmd cmds[BENCH_SCRIPT])
{
    int i;
    for (i = 0; i < BENCH_SCRIPT; i++) {
        zl_usercmd *c = &cmds[i];
        memset(c, 0, sizeof *c);
        c->msec = 16;
        c->forward = 127;
        c->side = (int8_t)((i & 16) ? 60 : -60);
        c->yaw = (zl_angle)(i * 1500);
        c->buttons = (i % 32 == 0) ? FPS_BUTTON_JUMP : 0;
    }
}

void bench_predictor_init(bench_predictor *p)
{
    fps_game_init(&p->world);
    memset(&p->start, 0, sizeof p->start);
    fps_player_spawn(&p->world, &p->start);
    p->game = fps_game_interface(&p->world);
    zl_schema_plan_init(&p->plan, &fps_player_schema);
    bench_script(p->cmds);
}

int bench_predictor_command(bench_predictor *p)
{
    zl_usercmd c = p->cmds[zl_predict_newest(&p->pred) % BENCH_SCRIPT];
    c.sequence = zl_predict_newest(&p->pred) + 1u;
    return zl_predict_command(&p->pred, &c, NULL);
}

void bench_predictor_reset(void *ctx)
{
    bench_predictor *p = (bench_predictor *)ctx;
    zl_predict_settings s;
    uint32_t i;
    zl_predict_settings_default(&s);
    s.origin_field = 0; /* origin.x, y, z lead fps_player_schema */
    s.plan = &p->plan;
    zl_predict_init(&p->pred, &p->game, &s, &p->start);
    for (i = 0; i < p->window; i++)
        bench_predictor_command(p);
    p->nudge = 2048; /* 1/32 unit: the wire's step */
}

int bench_predictor_hit(bench_predictor *p)
{
    uint32_t ack = zl_predict_acked(&p->pred) + 1u;
    bench_predictor_command(p);
    return zl_predict_reconcile(&p->pred, ack, zl_predict_state_after(&p->pred, ack), 0);
}

int bench_predictor_miss(bench_predictor *p, uint64_t now_us)
{
    fps_player server;
    uint32_t ack = zl_predict_acked(&p->pred) + 1u;
    bench_predictor_command(p);
    memcpy(&server, zl_predict_state_after(&p->pred, ack), sizeof server);
    server.origin.x += p->nudge;
    p->nudge = -p->nudge;
    return zl_predict_reconcile(&p->pred, ack, &server, now_us);
}

/* Players circling and turning, every sample received; the render time
 * falls between two samples in the middle of the ring, so each draw walks
 * back through half the history as a real one 100 ms behind does. */
void bench_drawn_fill(bench_drawn *d)
{
    zl_interp_config c;
    uint32_t e, k;
    zl_schema_plan_init(&d->plan, &fps_player_schema);
    zl_interp_config_init(&c, &fps_player_schema);
    c.plan = &d->plan;
    c.origin_field = 0; /* origin.x, y, z lead fps_player_schema */
    zl_interp_settings_default(&d->settings);
    memset(d->hist, 0, sizeof d->hist);
    for (e = 0; e < BENCH_DRAWN_MAX; e++) {
        fps_player p;
        memset(&p, 0, sizeof p);
        for (k = 0; k < ZL_INTERP_SAMPLES; k++) {
            zl_angle a = (zl_angle)(e * 1024u + k * 700u);
            p.origin = zl_vec3_make(zl_fx_mul(ZL_FX_INT(200), zl_cos(a)),
                                    zl_fx_mul(ZL_FX_INT(200), zl_sin(a)), ZL_FX_INT(e));
            p.yaw = (zl_angle)(a + 16384u);
            p.health = (uint8_t)(100u - k);
            zl_schema_quantize(&fps_player_schema, &p);
            zl_interp_push(&d->hist[e], &c, 1000u + k, (uint64_t)(1000u + k) * SNAPSHOT_US, &p);
        }
    }
    d->render_us = (uint64_t)(1000u + ZL_INTERP_SAMPLES / 2) * SNAPSHOT_US + SNAPSHOT_US / 3;
}

uint32_t bench_drawn_frame(bench_drawn *d, uint32_t frame)
{
    zl_interp_frame f;
    uint32_t e, acc = 0;
    zl_interp_frame_begin(&f, &d->settings, d->render_us + frame % 7u);
    for (e = 0; e < d->drawn; e++)
        acc += (uint32_t)zl_interp_frame_sample(&f, &d->hist[e], &d->out[e], NULL);
    return acc + (uint32_t)d->out[0].origin.x;
}
