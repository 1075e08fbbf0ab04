/* test_interp.c - entity interpolation: Source's worked example, the delay
 * formula, curves, loss, extrapolation cap, teleports and exact replay. */
#include <math.h>
#include <string.h>

#include "fps.h"
#include "zl_interp.h"
#include "zl_test.h"

/* A small entity: a position, a heading, step flags and a respawn counter. */
typedef struct ball {
    zl_vec3 pos;
    zl_angle yaw;
    uint8_t flags;
    uint8_t teleport;
} ball;

static const zl_field ball_fields[] = {
    ZL_FIELD_FX(ball, pos.x, -4096, 4095, 16, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(ball, pos.y, -4096, 4095, 16, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(ball, pos.z, -4096, 4095, 16, ZL_INTERP_LINEAR),
    ZL_FIELD_ANGLE(ball, yaw, 16, ZL_INTERP_ARC),
    ZL_FIELD_FLAGS(ball, flags, 8, ZL_INTERP_STEP),
    ZL_FIELD_INT(ball, teleport, 0, 255, ZL_INTERP_STEP),
};
static const zl_schema ball_schema = ZL_SCHEMA(ball, ball_fields);

static int field_index(const zl_schema *s, const char *name)
{
    int i;
    for (i = 0; i < (int)s->count; i++)
        if (strcmp(s->fields[i].name, name) == 0)
            return i;
    return -1;
}

static zl_interp_config ball_config(void)
{
    zl_interp_config c;
    zl_interp_config_init(&c, &ball_schema);
    c.origin_field = field_index(&ball_schema, "pos.x");
    c.teleport_field = field_index(&ball_schema, "teleport");
    return c;
}

static ball make_ball(int32_t x_units)
{
    ball b;
    memset(&b, 0, sizeof b);
    b.pos.x = ZL_FX_INT(x_units);
    return b;
}

static zl_interp_settings defaults(void)
{
    zl_interp_settings s;
    zl_interp_settings_default(&s);
    return s;
}

static void test_delay(void)
{
    zl_interp_settings s = defaults();
    /* Source: max(0.1, 2 / 20) = 100 ms. */
    ZL_CHECK_EQ(zl_interp_delay_us(&s, 20), 100000);
    /* cl_interp 0, ratio 2 at 66 snapshots/s: 2/66 s = 30303.03 us. */
    s.interp_us = 0;
    ZL_CHECK_EQ(zl_interp_delay_us(&s, 66), (uint32_t)floor(2e6 / 66.0 + 0.5));
    ZL_CHECK_EQ(zl_interp_delay_us(&s, 66), 30303);
    /* 2/3 s = 666666.67 rounds up. */
    ZL_CHECK_EQ(zl_interp_delay_us(&s, 3), 666667);
    /* The ratio wins at a low snapshot rate, the floor at a high one. */
    s = defaults();
    ZL_CHECK_EQ(zl_interp_delay_us(&s, 10), 200000);
    ZL_CHECK_EQ(zl_interp_delay_us(&s, 128), 100000);
    ZL_CHECK_EQ(zl_interp_delay_us(&s, 0), 100000);
    s.interp_ratio = UINT32_MAX;
    ZL_CHECK_EQ(zl_interp_delay_us(&s, 1), UINT32_MAX);
}

/* Source's example: ticks 340, 342, 344 at 10.20, 10.25, 10.30 s; client at
 * 10.32 s with 0.1 s of interp draws 10.22 s. */
static void test_source_example(void)
{
    static zl_interp_history h, lost;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    zl_interp_pick p;
    ball b, out;
    uint64_t render = 10320000u - zl_interp_delay_us(&s, 20);
    memset(&h, 0, sizeof h);
    memset(&lost, 0, sizeof lost);
    /* A straight line at 10 units per tick, so both pairs give x = 8. */
    b = make_ball(0);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 340, 10200000u, &b), ZL_OK);
    ZL_CHECK_EQ(zl_interp_push(&lost, &c, 340, 10200000u, &b), ZL_OK);
    b = make_ball(20);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 342, 10250000u, &b), ZL_OK);
    b = make_ball(40);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 344, 10300000u, &b), ZL_OK);
    ZL_CHECK_EQ(zl_interp_push(&lost, &c, 344, 10300000u, &b), ZL_OK);
    ZL_CHECK_EQ(render, 10220000u);

    ZL_CHECK_EQ(zl_interp_sample(&h, &s, render, &out, &p), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(p.mode, ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(p.render_us, render);
    ZL_CHECK_EQ(p.tick_a, 340);
    ZL_CHECK_EQ(p.tick_b, 342);
    ZL_CHECK(fabs(p.t - 0.4 * 65536.0) <= 1.0);
    ZL_CHECK_EQ(p.t, 26214);
    ZL_CHECK(fabs(out.pos.x - 8.0 * 65536.0) <= 20.0); /* t error x 20 units */

    ZL_CHECK_EQ(zl_interp_sample(&lost, &s, render, &out, &p), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(p.tick_a, 340);
    ZL_CHECK_EQ(p.tick_b, 344);
    ZL_CHECK(fabs(p.t - 0.2 * 65536.0) <= 1.0);
    ZL_CHECK_EQ(p.t, 13107);
    ZL_CHECK(fabs(out.pos.x - 8.0 * 65536.0) <= 40.0);
}

/* A ball dropped from H units bouncing elastically on z = 0 while drifting
 * along x; z at time sec (double oracle). */
#define BALL_H 200.0
#define BALL_G 800.0
static double ball_z(double sec)
{
    double period = 2.0 * sqrt(2.0 * BALL_H / BALL_G);
    double v0 = BALL_G * period / 2.0;
    double tau = fmod(sec + period / 2.0, period); /* start at the top */
    return v0 * tau - BALL_G * tau * tau / 2.0;
}

static ball ball_at(uint64_t us)
{
    ball b;
    double sec = (double)us / 1e6;
    memset(&b, 0, sizeof b);
    b.pos.x = (zl_fx)floor(100.0 * sec * 65536.0 + 0.5);
    b.pos.z = (zl_fx)floor(ball_z(sec) * 65536.0 + 0.5);
    return b;
}

/* Sampled at 100 Hz, drawn every millisecond 100 ms in the past. The
 * samples include the lowest points, so the drawing touches them all; a
 * client keeping only the two newest samples of each 25 Hz frame draws
 * chords 40 ms long and cuts the bounces off. */
static void test_bouncing_ball(void)
{
    static zl_interp_history h, sparse;
    const uint64_t tick_us = 10000, delay = 100000;
    const int ticks = 400, frame_ticks = 4;
    const double h_sec = 1e-2;
    double period = 2.0 * sqrt(2.0 * BALL_H / BALL_G), v0 = BALL_G * period / 2.0;
    /* Chord error of the parabola g h^2 / 8; across a bounce at most
     * v0 h / 2 (a V cut by a chord). Rounding adds a raw unit for the
     * samples and the lerp, and the floored t up to one raw unit per unit
     * moved in a tick (at most v0 h). */
    double slack = (2.0 + v0 * h_sec) / 65536.0;
    double smooth_bound = BALL_G * h_sec * h_sec / 8.0 + slack;
    double bounce_bound = v0 * h_sec / 2.0 + slack;
    double worst = 0.0, worst_smooth = 0.0, worst_sparse = 0.0;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    int k, j, exact_hits = 0, exact_ok = 0, renders = 0, bound_ok = 1, bounces = 0;
    c.origin_field = -1; /* the bounce is fast but no teleport */
    memset(&h, 0, sizeof h);
    memset(&sparse, 0, sizeof sparse);
    for (k = 0; k < ticks; k++) {
        uint64_t now = (uint64_t)k * tick_us;
        ball b = ball_at(now);
        ZL_CHECK_EQ(zl_interp_push(&h, &c, (uint32_t)k, now, &b), ZL_OK);
        if (k % frame_ticks == 0)
            ZL_CHECK_EQ(zl_interp_push(&sparse, &c, (uint32_t)k, now, &b), ZL_OK);
        if (now < delay + tick_us)
            continue;
        for (j = 0; j < 10; j++) {
            uint64_t r = now - delay + (uint64_t)j * 1000u;
            uint64_t k0 = r / tick_us;
            double sec = (double)r / 1e6, truth = ball_z(sec), dev;
            /* Bounces fall at (m - 1/2) periods: is one inside this pair? */
            int bounce_inside = floor(((double)k0 * h_sec + period / 2.0) / period) !=
                                floor(((double)(k0 + 1) * h_sec + period / 2.0) / period);
            ball out, out_sparse, sample;
            ZL_CHECK_EQ(zl_interp_sample(&h, &s, r, &out, NULL), ZL_PICK_BETWEEN);
            ZL_CHECK(zl_interp_sample(&sparse, &s, r, &out_sparse, NULL) >= ZL_PICK_HELD);
            renders++;
            if (r % tick_us == 0) {
                sample = ball_at(r);
                exact_hits++;
                exact_ok += zl_schema_equal(&ball_schema, &out, &sample, ZL_SCHEMA_ALL);
            }
            dev = fabs(out.pos.z / 65536.0 - truth);
            if (dev > worst)
                worst = dev;
            if (bounce_inside) {
                bounces++;
                if (dev > bounce_bound)
                    bound_ok = 0;
            } else {
                if (dev > worst_smooth)
                    worst_smooth = dev;
                if (dev > smooth_bound)
                    bound_ok = 0;
            }
            dev = fabs(out_sparse.pos.z / 65536.0 - truth);
            if (dev > worst_sparse)
                worst_sparse = dev;
        }
    }
    ZL_CHECK(renders > 3000);
    ZL_CHECK(exact_hits > 300);
    ZL_CHECK_EQ(exact_ok, exact_hits);
    ZL_CHECK(bounces > 0);
    ZL_CHECK(bound_ok);
    ZL_CHECK(worst_smooth <= smooth_bound);
    ZL_CHECK(worst <= bounce_bound);
    ZL_CHECK(worst_sparse > 3.0 * worst);
    zl_test_note("max deviation %.3f units (%.4f off the bounces; bound %.3f), "
                 "two newest per 25 Hz frame only: %.3f units",
                 worst, worst_smooth, bounce_bound, worst_sparse);
}

/* 10 units per 10 ms along x; yaw and flags change at the last sample. */
static void push_line(zl_interp_history *h, const zl_interp_config *c, int n)
{
    int k;
    for (k = 0; k < n; k++) {
        ball b = make_ball(10 * k);
        b.yaw = (zl_angle)(k == n - 1 ? 2000 : 1000);
        b.flags = (uint8_t)(k == n - 1 ? 2 : 1);
        ZL_CHECK_EQ(zl_interp_push(h, c, (uint32_t)k, (uint64_t)k * 10000u, &b), ZL_OK);
    }
}

static void test_extrapolation_cap(void)
{
    static zl_interp_history h;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    zl_interp_pick p;
    ball out;
    const uint64_t newest = 40000;
    memset(&h, 0, sizeof h);
    push_line(&h, &c, 5); /* x = 40 at 40 ms */
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, newest + 50000u, &out, &p), ZL_PICK_EXTRAPOLATED);
    ZL_CHECK_EQ(p.tick_a, 3);
    ZL_CHECK_EQ(p.tick_b, 4);
    ZL_CHECK_EQ(p.t, 6 * ZL_FX_ONE);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(90));
    ZL_CHECK_EQ(out.yaw, 2000); /* angles are not guessed */
    ZL_CHECK_EQ(out.flags, 2);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, newest + 250000u, &out, &p), ZL_PICK_EXTRAPOLATED);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(290));
    /* Past the cap the entity holds where the cap left it. */
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, newest + 250001u, &out, &p), ZL_PICK_EXTRAPOLATED);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(290));
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, newest + 5000000u, &out, &p), ZL_PICK_EXTRAPOLATED);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(290));
    ZL_CHECK_EQ(p.t, 26 * ZL_FX_ONE);
    /* The cap changes at run time; 0 never guesses. */
    s.extrapolate_us = 100000;
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, newest + 5000000u, &out, &p), ZL_PICK_EXTRAPOLATED);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(140));
    s.extrapolate_us = 0;
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, newest + 5000000u, &out, &p), ZL_PICK_HELD);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(40));
    ZL_CHECK_EQ(p.tick_a, 4);
    ZL_CHECK_EQ(p.t, 0);
    /* Exactly at the newest sample is that sample, not a guess. */
    s = defaults();
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, newest, &out, &p), ZL_PICK_HELD);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(40));
    /* A linear field stops at its schema range. */
    {
        static zl_interp_history far;
        ball b = make_ball(4000);
        memset(&far, 0, sizeof far);
        c.origin_field = -1;
        ZL_CHECK_EQ(zl_interp_push(&far, &c, 1, 10000, &b), ZL_OK);
        b = make_ball(4050);
        ZL_CHECK_EQ(zl_interp_push(&far, &c, 2, 20000, &b), ZL_OK);
        ZL_CHECK_EQ(zl_interp_sample(&far, &s, 200000, &out, &p), ZL_PICK_EXTRAPOLATED);
        ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(4095));
    }
}

static void test_teleport_flag(void)
{
    static zl_interp_history h, control;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    zl_interp_pick p;
    ball b, out;
    memset(&h, 0, sizeof h);
    memset(&control, 0, sizeof control);
    push_line(&h, &c, 5);
    push_line(&control, &c, 5);
    b = make_ball(50); /* a short hop, but the server says respawn */
    b.teleport = 1;
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 5, 50000, &b), ZL_INTERP_RESTARTED);
    b.teleport = 0;
    ZL_CHECK_EQ(zl_interp_push(&control, &c, 5, 50000, &b), ZL_OK);
    ZL_CHECK_EQ(h.count, 1);
    ZL_CHECK_EQ(h.restarts, 1);
    ZL_CHECK_EQ(control.restarts, 0);
    /* Drawn 100 ms back, before the new sample: it is held, not slid to. */
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 45000, &out, &p), ZL_PICK_HELD);
    ZL_CHECK_EQ(p.tick_a, 5);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(50));
    ZL_CHECK_EQ(zl_interp_sample(&control, &s, 45000, &out, &p), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(45));
    /* The counter is compared by value, so a wrap to 0 also counts. */
    b.teleport = 1;
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 6, 60000, &b), ZL_OK);
    b.teleport = 0;
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 7, 70000, &b), ZL_INTERP_RESTARTED);
    ZL_CHECK_EQ(h.restarts, 2);
}

static int push_moved(const zl_interp_config *c, int32_t dx, int32_t dy, int32_t dz)
{
    static zl_interp_history h;
    ball b = make_ball(0);
    memset(&h, 0, sizeof h);
    ZL_CHECK_EQ(zl_interp_push(&h, c, 1, 1000, &b), ZL_OK);
    b.pos.x = ZL_FX_INT(dx);
    b.pos.y = ZL_FX_INT(dy);
    b.pos.z = ZL_FX_INT(dz);
    return zl_interp_push(&h, c, 2, 2000, &b);
}

static void test_teleport_distance(void)
{
    zl_interp_config c = ball_config();
    ZL_CHECK_EQ(c.teleport_distance, ZL_FX_INT(64));
    ZL_CHECK_EQ(push_moved(&c, 64, 0, 0), ZL_OK);
    ZL_CHECK_EQ(push_moved(&c, 0, -64, 0), ZL_OK);
    ZL_CHECK_EQ(push_moved(&c, 65, 0, 0), ZL_INTERP_RESTARTED);
    ZL_CHECK_EQ(push_moved(&c, 0, 0, -65), ZL_INTERP_RESTARTED);
    /* Euclidean: 36 on each axis is 62.4 units, 40 on each is 69.3. */
    ZL_CHECK_EQ(push_moved(&c, 36, -36, 36), ZL_OK);
    ZL_CHECK_EQ(push_moved(&c, 40, -40, 40), ZL_INTERP_RESTARTED);
    ZL_CHECK_EQ(push_moved(&c, -4096, 4095, -4096), ZL_INTERP_RESTARTED);
    /* 0 disables the distance test; -1 fields disable both. */
    c.teleport_distance = 0;
    ZL_CHECK_EQ(push_moved(&c, 4000, 0, 0), ZL_OK);
    c = ball_config();
    c.origin_field = -1;
    ZL_CHECK_EQ(push_moved(&c, 4000, 0, 0), ZL_OK);
    c.teleport_distance = ZL_FX_INT(10);
    c.origin_field = field_index(&ball_schema, "pos.x");
    ZL_CHECK_EQ(push_moved(&c, 6, 6, 6), ZL_INTERP_RESTARTED);
}

static void test_angle_wrap(void)
{
    static zl_interp_history h;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    ball b = make_ball(0), out;
    uint64_t r;
    int ok = 1;
    memset(&h, 0, sizeof h);
    b.yaw = ZL_ANGLE_DEG(359);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 1, 10000, &b), ZL_OK);
    b.yaw = ZL_ANGLE_DEG(1);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 2, 20000, &b), ZL_OK);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 15000, &out, NULL), ZL_PICK_BETWEEN);
    ZL_CHECK(zl_angle_diff(0, out.yaw) >= -1 && zl_angle_diff(0, out.yaw) <= 1);
    /* Every step of the way stays on the 2-degree arc through 0. */
    for (r = 10000; r < 20000; r += 100) {
        int32_t d;
        zl_interp_sample(&h, &s, r, &out, NULL);
        d = zl_angle_diff(ZL_ANGLE_DEG(359), out.yaw);
        if (d < 0 || d > zl_angle_diff(ZL_ANGLE_DEG(359), ZL_ANGLE_DEG(1)))
            ok = 0;
    }
    ZL_CHECK(ok);
}

static void test_step_switch(void)
{
    static zl_interp_history h;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    zl_interp_pick p;
    ball b = make_ball(0), out;
    memset(&h, 0, sizeof h);
    b.flags = 1;
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 1, 10000, &b), ZL_OK);
    b.flags = 2;
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 2, 20000, &b), ZL_OK);
    b.flags = 4;
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 3, 30000, &b), ZL_OK);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 19999, &out, &p), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(out.flags, 1);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 20000, &out, &p), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(p.tick_a, 2);
    ZL_CHECK_EQ(p.t, 0);
    ZL_CHECK_EQ(out.flags, 2);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 29999, &out, &p), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(out.flags, 2);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 30000, &out, &p), ZL_PICK_HELD);
    ZL_CHECK_EQ(out.flags, 4);
}

/* Entity 7 dies and its number goes to a new entity 30 units away (too
 * close for the distance test): only the reset keeps them apart. */
static void test_index_reuse(void)
{
    static zl_interp_history h, control;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    zl_interp_pick p;
    ball b, out;
    memset(&h, 0, sizeof h);
    memset(&control, 0, sizeof control);
    push_line(&h, &c, 5);
    push_line(&control, &c, 5);
    zl_interp_reset(&h);
    ZL_CHECK_EQ(h.count, 0);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 45000, &out, &p), ZL_PICK_EMPTY);
    b = make_ball(70);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 5, 50000, &b), ZL_OK);
    ZL_CHECK_EQ(zl_interp_push(&control, &c, 5, 50000, &b), ZL_OK);
    ZL_CHECK_EQ(h.count, 1);
    ZL_CHECK_EQ(h.pushed, 6); /* counters survive the reset */
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 45000, &out, &p), ZL_PICK_HELD);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(70));
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 20000, &out, &p), ZL_PICK_HELD);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(70));
    ZL_CHECK_EQ(zl_interp_sample(&control, &s, 45000, &out, &p), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(55)); /* what blending would have drawn */
    /* Entity numbers may also restart at an older tick after a reset. */
    zl_interp_reset(&h);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 2, 20000, &b), ZL_OK);
}

static void test_stale(void)
{
    static zl_interp_history h;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    ball b = make_ball(1), out;
    memset(&h, 0, sizeof h);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 10, 100000, &b), ZL_OK);
    b = make_ball(2);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 12, 120000, &b), ZL_OK);
    b = make_ball(9);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 12, 120000, &b), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 11, 110000, &b), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 3, 30000, &b), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 13, 120000, &b), ZL_ERR_INVALID);
    ZL_CHECK_EQ(h.stale, 4);
    ZL_CHECK_EQ(h.pushed, 2);
    ZL_CHECK_EQ(h.count, 2);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 120000, &out, NULL), ZL_PICK_HELD);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(2));
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 110000, &out, NULL), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(1) + ZL_FX_HALF);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 13, 130000, &b), ZL_OK);
    ZL_CHECK_EQ(h.pushed, 3);
}

static void test_ring_wrap(void)
{
    static zl_interp_history h;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    zl_interp_pick p;
    ball out;
    const uint32_t n = 3 * ZL_INTERP_SAMPLES + 4, oldest = n - ZL_INTERP_SAMPLES;
    uint32_t k;
    memset(&h, 0, sizeof h);
    c.origin_field = -1;
    for (k = 0; k < n; k++) {
        ball b = make_ball((int32_t)k);
        ZL_CHECK_EQ(zl_interp_push(&h, &c, k, (uint64_t)k * 10000u, &b), ZL_OK);
    }
    ZL_CHECK_EQ(h.count, ZL_INTERP_SAMPLES);
    ZL_CHECK_EQ(h.pushed, n);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 10000u * (oldest - 3), &out, &p), ZL_PICK_HELD);
    ZL_CHECK_EQ(p.tick_a, oldest);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(oldest));
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 10000u * oldest + 2500u, &out, &p), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(p.tick_a, oldest);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(oldest) + ZL_FX_ONE / 4);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 10000u * (n - 2) + 7500u, &out, &p), ZL_PICK_BETWEEN);
    ZL_CHECK_EQ(p.tick_a, n - 2);
    ZL_CHECK_EQ(p.tick_b, n - 1);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(n - 2) + 3 * ZL_FX_ONE / 4);
}

static void test_empty(void)
{
    static zl_interp_history h;
    zl_interp_settings s = defaults();
    zl_interp_pick p;
    zl_usercmd cmd;
    ball out, untouched;
    memset(&h, 0, sizeof h);
    memset(&out, 0xAA, sizeof out);
    memset(&untouched, 0xAA, sizeof untouched);
    memset(&cmd, 0x55, sizeof cmd);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 12345, &out, &p), ZL_PICK_EMPTY);
    ZL_CHECK_EQ(p.mode, ZL_PICK_EMPTY);
    ZL_CHECK_EQ(p.render_us, 12345);
    ZL_CHECK(memcmp(&out, &untouched, sizeof out) == 0);
    zl_interp_pick_to_command(&p, &cmd);
    ZL_CHECK_EQ(cmd.render_tick, 0);
    ZL_CHECK_EQ(cmd.render_span, 0);
    ZL_CHECK_EQ(cmd.render_frac, 0);
    ZL_CHECK_EQ(cmd.msec, 0x5555); /* the rest of the command is untouched */
}

/* ---- What the player saw, replayed by the server ---- */

static void random_player(zl_test_rng *rng, fps_player *p)
{
    p->velocity.x = zl_test_rng_range(rng, ZL_FX_INT(-300), ZL_FX_INT(300));
    p->velocity.y = zl_test_rng_range(rng, ZL_FX_INT(-300), ZL_FX_INT(300));
    p->velocity.z = zl_test_rng_range(rng, ZL_FX_INT(-600), ZL_FX_INT(300));
    p->origin.x += zl_test_rng_range(rng, ZL_FX_INT(-8), ZL_FX_INT(8));
    p->origin.y += zl_test_rng_range(rng, ZL_FX_INT(-8), ZL_FX_INT(8));
    p->origin.z += zl_test_rng_range(rng, ZL_FX_INT(-4), ZL_FX_INT(4));
    p->yaw = (zl_angle)(p->yaw + zl_test_rng_range(rng, -3000, 3000));
    p->pitch = (zl_angle)zl_test_rng_u32(rng);
    p->weapon_time = (uint16_t)zl_test_rng_range(rng, 0, 4000);
    p->flags = (uint8_t)zl_test_rng_range(rng, 0, 63);
    p->health = (uint8_t)zl_test_rng_range(rng, 0, FPS_HEALTH_MAX);
    p->weapon = (uint8_t)zl_test_rng_range(rng, 0, FPS_WEAPON_COUNT - 1);
    p->clip[0] = (uint8_t)zl_test_rng_range(rng, 0, 30);
    p->respawn_time = (uint16_t)zl_test_rng_range(rng, 0, FPS_RESPAWN_MS);
    p->step_time = (uint16_t)zl_test_rng_range(rng, 0, 1000);
    if (zl_test_rng_range(rng, 0, 99) == 0) { /* a respawn across the map */
        p->teleport++;
        p->origin.x = zl_test_rng_range(rng, ZL_FX_INT(-1000), ZL_FX_INT(1000));
    }
    p->origin.x = p->origin.x > ZL_FX_INT(2000) ? ZL_FX_INT(2000) : p->origin.x;
    p->origin.x = p->origin.x < ZL_FX_INT(-2000) ? ZL_FX_INT(-2000) : p->origin.x;
    zl_schema_quantize(&fps_player_schema, p);
}

#define REPLAY_TICKS 3000
#define TICK_US 15625u /* 64 Hz */

/* The server keeps every tick's state; the client receives 70% of them,
 * draws at random times around its history, and reports the pick in a
 * command. Rebuilding from the server's table must give the same bits. */
static void test_command_replays_drawing(void)
{
    static fps_player table[REPLAY_TICKS];
    static zl_interp_history h;
    zl_interp_config c;
    zl_interp_settings s = defaults();
    zl_test_rng rng;
    int counts[4] = {0, 0, 0, 0}, exact = 0, checked = 0, valid = 0, extrap_ok = 0;
    uint32_t k;
    zl_interp_config_init(&c, &fps_player_schema);
    c.origin_field = field_index(&fps_player_schema, "origin.x");
    c.teleport_field = field_index(&fps_player_schema, "teleport");
    ZL_CHECK(c.origin_field >= 0 && c.teleport_field >= 0);
    zl_test_rng_seed(&rng, 0x1A7E);
    memset(&h, 0, sizeof h);
    memset(&table[0], 0, sizeof table[0]);
    zl_schema_quantize(&fps_player_schema, &table[0]);
    for (k = 1; k < REPLAY_TICKS; k++) {
        table[k] = table[k - 1];
        random_player(&rng, &table[k]);
    }
    for (k = 0; k < REPLAY_TICKS; k++) {
        int j;
        if (zl_test_rng_range(&rng, 0, 9) < 3)
            continue; /* lost */
        ZL_CHECK(zl_interp_push(&h, &c, k, (uint64_t)k * TICK_US, &table[k]) >= 0);
        for (j = 0; j < 4; j++) {
            fps_player out, server;
            zl_interp_pick p;
            zl_usercmd cmd;
            uint64_t lo, hi, r;
            int mode;
            /* From 50 ms before the oldest sample (held at time 0) to past
             * the extrapolation cap. */
            zl_interp_sample(&h, &s, 0, &out, &p);
            lo = p.time_a > 50000u ? p.time_a - 50000u : 0;
            hi = (uint64_t)k * TICK_US + 300000u;
            r = lo + zl_test_rng_u32(&rng) % (hi - lo);
            if (j == 0) /* exactly on a sample now and then */
                r = TICK_US *
                    (uint64_t)zl_test_rng_range(&rng, (int32_t)(lo / TICK_US), (int32_t)k);
            memset(&cmd, 0, sizeof cmd);
            cmd.msec = 16;
            mode = zl_interp_sample(&h, &s, r, &out, &p);
            counts[mode]++;
            zl_interp_pick_to_command(&p, &cmd);
            valid += zl_usercmd_validate(&cmd) == ZL_OK;
            /* As the server poses it: the pair at the fraction, extrapolated
             * past the newer sample when render_whole says so. */
            if (cmd.render_span == 0)
                server = table[cmd.render_tick];
            else
                zl_schema_interpolate(&fps_player_schema, &server, &table[cmd.render_tick],
                                      &table[cmd.render_tick + cmd.render_span],
                                      (zl_fx)((uint32_t)cmd.render_whole << 16) + cmd.render_frac);
            checked++;
            exact += zl_schema_equal(&fps_player_schema, &out, &server, ZL_SCHEMA_ALL);
            extrap_ok += mode == ZL_PICK_EXTRAPOLATED &&
                         zl_schema_equal(&fps_player_schema, &out, &server, ZL_SCHEMA_ALL);
        }
    }
    ZL_CHECK_EQ(counts[ZL_PICK_EMPTY], 0);
    ZL_CHECK(counts[ZL_PICK_HELD] > 100);
    ZL_CHECK(counts[ZL_PICK_BETWEEN] > 4000);
    ZL_CHECK(counts[ZL_PICK_EXTRAPOLATED] > 500);
    ZL_CHECK_EQ(extrap_ok, counts[ZL_PICK_EXTRAPOLATED]);
    ZL_CHECK_EQ(exact, checked);
    ZL_CHECK_EQ(valid, counts[0] + counts[1] + counts[2] + counts[3]);
    ZL_CHECK(h.restarts > 0);
    zl_test_note("%d draws replayed bit-exact (%d between, %d held, %d extrapolated), "
                 "%u teleports",
                 exact, counts[ZL_PICK_BETWEEN], counts[ZL_PICK_HELD], extrap_ok,
                 (unsigned)h.restarts);
}

/* A pair more than 255 ticks apart (a long loss) cannot be named by a
 * span: the nearer sample stands in. 255 still fits. */
static void test_command_far_pair(void)
{
    static zl_interp_history h;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    zl_interp_pick p;
    zl_usercmd cmd;
    ball b = make_ball(0), out;
    memset(&h, 0, sizeof h);
    memset(&cmd, 0, sizeof cmd);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 100, 1000000, &b), ZL_OK);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 355, 3550000, &b), ZL_OK);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 656, 6560000, &b), ZL_OK);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 2000000, &out, &p), ZL_PICK_BETWEEN);
    zl_interp_pick_to_command(&p, &cmd);
    ZL_CHECK_EQ(cmd.render_tick, 100);
    ZL_CHECK_EQ(cmd.render_span, 255);
    ZL_CHECK_EQ(cmd.render_frac, p.t);
    ZL_CHECK(p.t > 0);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 4000000, &out, &p), ZL_PICK_BETWEEN);
    zl_interp_pick_to_command(&p, &cmd);
    ZL_CHECK_EQ(cmd.render_tick, 355);
    ZL_CHECK_EQ(cmd.render_span, 0);
    ZL_CHECK_EQ(cmd.render_frac, 0);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 5100000, &out, &p), ZL_PICK_BETWEEN);
    zl_interp_pick_to_command(&p, &cmd);
    ZL_CHECK_EQ(cmd.render_tick, 656);
    ZL_CHECK_EQ(cmd.render_span, 0);
    /* An extrapolation past a pair too far apart names the newer tick
     * alone, as a held pick names its tick. */
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 6600000, &out, &p), ZL_PICK_EXTRAPOLATED);
    zl_interp_pick_to_command(&p, &cmd);
    ZL_CHECK_EQ(cmd.render_tick, 656);
    ZL_CHECK_EQ(cmd.render_span, 0);
    ZL_CHECK_EQ(cmd.render_frac, 0);
    ZL_CHECK_EQ(cmd.render_whole, 0);
    ZL_CHECK_EQ(zl_interp_sample(&h, &s, 10, &out, &p), ZL_PICK_HELD);
    zl_interp_pick_to_command(&p, &cmd);
    ZL_CHECK_EQ(cmd.render_tick, 100);
    ZL_CHECK_EQ(cmd.render_span, 0);
}

/* x * q as a 128-bit value in two halves (q < 2^32). */
static void mul_wide(uint64_t x, uint64_t q, uint64_t *hi, uint64_t *lo)
{
    uint64_t a = (x & 0xFFFFFFFFu) * q, b = (x >> 32) * q;
    *lo = a + (b << 32);
    *hi = (b >> 32) + (*lo < a);
}

static int wide_le(uint64_t ah, uint64_t al, uint64_t bh, uint64_t bl)
{
    return ah < bh || (ah == bh && al <= bl);
}

/* t is the exact floor for any times, gaps near 2^63 us included: checked
 * by its definition, t * span <= into * 65536 < (t + 1) * span. */
static void test_fraction_exact(void)
{
    static zl_interp_history h;
    zl_interp_config c = ball_config();
    zl_interp_settings s = defaults();
    zl_interp_pick p;
    zl_test_rng rng;
    ball b = make_ball(0), out;
    int i, ok = 0, n = ZL_TEST_ITERATIONS(2000);
    zl_test_rng_seed(&rng, 77);
    for (i = 0; i < n; i++) {
        uint64_t t0 = ((uint64_t)zl_test_rng_u32(&rng) << 20) | zl_test_rng_u32(&rng);
        uint64_t span = ((uint64_t)zl_test_rng_u32(&rng) << (i % 32)) | zl_test_rng_u32(&rng);
        uint64_t into = ((uint64_t)zl_test_rng_u32(&rng) << 32) | zl_test_rng_u32(&rng);
        uint64_t xh, xl, lh, ll, uh, ul;
        span++; /* never 0 */
        into %= span;
        xh = into >> 48;
        xl = into << 16;
        memset(&h, 0, sizeof h);
        ZL_CHECK_EQ(zl_interp_push(&h, &c, 1, t0, &b), ZL_OK);
        ZL_CHECK_EQ(zl_interp_push(&h, &c, 2, t0 + span, &b), ZL_OK);
        if (zl_interp_sample(&h, &s, t0 + into, &out, &p) != ZL_PICK_BETWEEN || p.t < 0 ||
            p.t >= ZL_FX_ONE)
            continue;
        mul_wide(span, (uint64_t)p.t, &lh, &ll);
        mul_wide(span, (uint64_t)p.t + 1u, &uh, &ul);
        ok += wide_le(lh, ll, xh, xl) && !wide_le(uh, ul, xh, xl);
    }
    ZL_CHECK_EQ(ok, n);
}

void zl_suite_interp(void)
{
    ZL_RUN(test_delay);
    ZL_RUN(test_source_example);
    ZL_RUN(test_bouncing_ball);
    ZL_RUN(test_extrapolation_cap);
    ZL_RUN(test_teleport_flag);
    ZL_RUN(test_teleport_distance);
    ZL_RUN(test_angle_wrap);
    ZL_RUN(test_step_switch);
    ZL_RUN(test_index_reuse);
    ZL_RUN(test_stale);
    ZL_RUN(test_ring_wrap);
    ZL_RUN(test_empty);
    ZL_RUN(test_command_replays_drawing);
    ZL_RUN(test_command_far_pair);
    ZL_RUN(test_fraction_exact);
}
