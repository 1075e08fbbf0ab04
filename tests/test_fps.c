/* test_fps.c - the reference FPS rules: movement against double-precision
 * models and the arena's geometry, weapons' timing, the server's damage,
 * rockets and respawn, and the zl_game contract (purity, events once). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fps.h"
#include "zl_test.h"

#define FX(u) ZL_FX_INT(u)
#define UNITS(v) ((double)(v) / 65536.0)

static zl_usercmd make_cmd(int forward, int side, uint16_t buttons, int yaw_deg)
{
    zl_usercmd c;
    memset(&c, 0, sizeof c);
    c.msec = 16;
    c.forward = (int8_t)forward;
    c.side = (int8_t)side;
    c.buttons = buttons;
    c.yaw = ZL_ANGLE_DEG(yaw_deg);
    return c;
}

/* A fresh live player standing at (x, y, z) units. */
static fps_player player_at(int x, int y, int z)
{
    fps_game g;
    fps_player p;
    memset(&p, 0, sizeof p);
    fps_game_init(&g);
    fps_player_spawn(&g, &p);
    p.origin = zl_vec3_make(FX(x), FX(y), FX(z));
    p.teleport = 0;
    return p;
}

static void run(fps_player *p, const zl_usercmd *c, int n)
{
    int i;
    for (i = 0; i < n; i++)
        fps_run_command(p, c, p, 1, NULL);
}

static double hspeed(const fps_player *p)
{
    return sqrt(UNITS(p->velocity.x) * UNITS(p->velocity.x) +
                UNITS(p->velocity.y) * UNITS(p->velocity.y));
}

static void test_schemas_and_time(void)
{
    uint32_t ms;
    ZL_CHECK_EQ(zl_schema_validate(&fps_player_schema), ZL_OK);
    ZL_CHECK_EQ(zl_schema_validate(&fps_entity_schema), ZL_OK);
    ZL_CHECK_EQ(zl_schema_validate(&fps_event_schema), ZL_OK);
    /* msec * 65536 / 1000 rounded to nearest: checked against double. */
    for (ms = 1; ms <= ZL_USERCMD_MSEC_MAX; ms++)
        ZL_CHECK_EQ(fps_msec_to_seconds(ms), (zl_fx)floor(ms * 65.536 + 0.5));
    ZL_CHECK_EQ(fps_msec_to_seconds(16), 1049);
    ZL_CHECK_EQ(fps_msec_to_seconds(250), ZL_FX_ONE / 4);
}

/* Half-Life's ground model in double: friction, then accelerate. */
typedef struct ground_model {
    double v, x;
} ground_model;

static void model_step(ground_model *m, double wish, double dt)
{
    if (m->v > 0) {
        double control = m->v < 100 ? 100 : m->v;
        double drop = control * 4 * dt;
        m->v = m->v > drop ? m->v - drop : 0;
    }
    if (wish - m->v > 0) {
        double gain = 10 * dt * wish;
        m->v += gain < wish - m->v ? gain : wish - m->v;
    }
    m->x += m->v * dt;
}

static void test_ground_acceleration_and_friction(void)
{
    fps_player p = player_at(-800, 0, 0);
    zl_usercmd go = make_cmd(127, 0, 0, 0), stop = make_cmd(0, 0, 0, 0);
    ground_model m = {0, -800};
    double worst_v = 0, dt = 0.016;
    int i, top = -1, stopped = -1, model_stopped = -1;
    for (i = 0; i < 60; i++) {
        fps_run_command(&p, &go, &p, 1, NULL);
        model_step(&m, 320, dt);
        if (fabs(UNITS(p.velocity.x) - m.v) > worst_v)
            worst_v = fabs(UNITS(p.velocity.x) - m.v);
        if (top < 0 && UNITS(p.velocity.x) >= 319.9)
            top = i + 1;
        ZL_CHECK(UNITS(p.velocity.x) <= 320.0);
    }
    ZL_CHECK(worst_v < 0.25);
    ZL_CHECK(fabs(UNITS(p.origin.x) - m.x) < 0.5);
    ZL_CHECK_EQ(p.velocity.y, 0);
    ZL_CHECK(p.flags & FPS_PF_ON_GROUND);
    ZL_CHECK_EQ(p.origin.z, 0);
    for (i = 0; i < 60 && (stopped < 0 || model_stopped < 0); i++) {
        fps_run_command(&p, &stop, &p, 1, NULL);
        model_step(&m, 0, dt);
        if (stopped < 0 && p.velocity.x == 0)
            stopped = i + 1;
        if (model_stopped < 0 && m.v == 0)
            model_stopped = i + 1;
    }
    ZL_CHECK(stopped > 0 && abs(stopped - model_stopped) <= 1);
    ZL_CHECK(fabs(UNITS(p.origin.x) - m.x) < 1.0);
    zl_test_note("top speed 320 after %d ms; stops from 320 in %d ms; worst |v - model| %.3f u/s",
                 top * 16, stopped * 16, worst_v);
}

static void test_diagonal_and_crouch_speed(void)
{
    fps_player p = player_at(-800, -800, 0);
    zl_usercmd diag = make_cmd(127, 127, 0, 45), crouch = make_cmd(127, 0, FPS_BUTTON_DUCK, 90);
    run(&p, &diag, 60);
    ZL_CHECK(fabs(hspeed(&p) - 320.0) < 0.2); /* diagonal input is not faster */
    p = player_at(0, -800, 0);
    run(&p, &crouch, 60);
    ZL_CHECK(p.flags & FPS_PF_CROUCHED);
    ZL_CHECK(fabs(hspeed(&p) - 320.0 / 3) < 0.2);
}

static void test_jump(void)
{
    fps_player p = player_at(-800, 0, 0);
    zl_usercmd hold = make_cmd(0, 0, FPS_BUTTON_JUMP, 0), none = make_cmd(0, 0, 0, 0);
    zl_event store[8];
    zl_events sink;
    double apex = 0;
    int i, air = 0, jumps = 0, landed = -1;
    zl_events_init(&sink, store, 8);
    run(&p, &none, 2); /* settle on the floor */
    for (i = 0; i < 120; i++) {
        zl_events_clear(&sink);
        fps_run_command(&p, &hold, &p, 1, &sink);
        jumps += sink.count > 0 && store[0].type == FPS_EV_JUMP;
        if (UNITS(p.origin.z) > apex)
            apex = UNITS(p.origin.z);
        if (!(p.flags & FPS_PF_ON_GROUND))
            air++;
        else if (air > 0 && landed < 0)
            landed = i;
    }
    /* Held jump: one jump, no bunny hop until released. */
    ZL_CHECK_EQ(jumps, 1);
    ZL_CHECK(fabs(apex - 268.0 * 268.0 / 1600.0) < 0.1);
    ZL_CHECK(abs(air - (int)(2 * 268.0 / 800.0 / 0.016 + 0.5)) <= 1);
    ZL_CHECK_EQ(p.origin.z, 0);
    ZL_CHECK_EQ(p.velocity.z, 0);
    /* Released and pressed again: a second jump. */
    run(&p, &none, 1);
    fps_run_command(&p, &hold, &p, 1, NULL);
    ZL_CHECK(p.velocity.z > 0);
    zl_test_note("jump apex %.2f units, %d ms in the air", apex, air * 16);
}

static void test_air_control(void)
{
    fps_player p = player_at(-800, 0, 0);
    zl_usercmd jump = make_cmd(0, 0, FPS_BUTTON_JUMP, 0), strafe = make_cmd(0, 127, 0, 0);
    fps_player ground = p;
    run(&p, &jump, 1);
    run(&p, &strafe, 5);
    /* In the air, speed along the wish direction tops out at 30 u/s. */
    ZL_CHECK(!(p.flags & FPS_PF_ON_GROUND));
    ZL_CHECK(fabs(-UNITS(p.velocity.y) - 30.0) < 0.1); /* right is -y at yaw 0 */
    /* The same input on the ground gains 51 u/s in one command. */
    run(&ground, &strafe, 1);
    ZL_CHECK(-UNITS(ground.velocity.y) > 50.0);
}

static void test_walls_slide_and_stop(void)
{
    fps_player p = player_at(900, 0, 0);
    zl_usercmd east = make_cmd(127, 0, 0, 0), slant = make_cmd(127, 0, 0, 30);
    run(&p, &east, 60);
    ZL_CHECK_EQ(p.origin.x, FX(1024 - FPS_HALF_WIDTH)); /* flush against the wall */
    ZL_CHECK_EQ(p.velocity.x, 0);
    /* At 30 degrees to the wall: stopped across it, sliding along it. */
    p = player_at(900, 0, 0);
    run(&p, &slant, 60);
    ZL_CHECK_EQ(p.origin.x, FX(1024 - FPS_HALF_WIDTH));
    ZL_CHECK(UNITS(p.origin.y) > 100.0);
    ZL_CHECK(p.velocity.y > 0);
    /* At 2000 u/s for 250 ms (500 units) from 100 units away, in the air
     * (on the ground friction would eat it): no tunnel. */
    p = player_at(900, 0, 100);
    p.velocity.x = FX(2000);
    east = make_cmd(0, 0, 0, 0);
    east.msec = 250;
    run(&p, &east, 1);
    ZL_CHECK_EQ(p.origin.x, FX(1024 - FPS_HALF_WIDTH));
}

static int inside_arena(const fps_player *p)
{
    zl_box hull = fps_player_hull(p);
    int32_t top = 512 - (int32_t)(hull.max.z >> 16);
    return !fps_world_blocked(&p->origin, &hull) && p->origin.x >= FX(-1008) &&
           p->origin.x <= FX(1008) && p->origin.y >= FX(-1008) && p->origin.y <= FX(1008) &&
           p->origin.z >= 0 && p->origin.z <= FX(top);
}

static void test_never_inside_walls(void)
{
    zl_test_rng rng;
    fps_player p = player_at(0, 0, 0);
    int i, contacts = 0, crouched = 0, airborne = 0;
    zl_test_rng_seed(&rng, 41);
    /* Not scaled down on slow ports: the walk needs this long to reach
     * every wall, and it costs less than the golden run. */
    for (i = 0; i < 20000; i++) {
        /* Mostly on foot; jumps, crouches and shots now and then. One draw
         * per statement: argument evaluation order differs by compiler. */
        zl_usercmd c = make_cmd(0, 0, 0, 0);
        zl_vec3 before = p.origin;
        c.forward = (int8_t)zl_test_rng_range(&rng, -127, 127);
        c.side = (int8_t)zl_test_rng_range(&rng, -127, 127);
        c.buttons = (uint16_t)(zl_test_rng_range(&rng, 0, 7) & ~FPS_BUTTON_JUMP);
        if (zl_test_rng_range(&rng, 0, 99) == 0)
            c.buttons |= FPS_BUTTON_JUMP;
        c.yaw = (zl_angle)zl_test_rng_u32(&rng);
        c.msec = (uint16_t)(zl_test_rng_range(&rng, 0, 9) == 0 ? zl_test_rng_range(&rng, 1, 250) : 16);
        if (zl_test_rng_range(&rng, 0, 199) == 0) { /* a kick, like a blast */
            p.velocity.x = zl_test_rng_range(&rng, FX(-2000), FX(2000));
            p.velocity.y = zl_test_rng_range(&rng, FX(-2000), FX(2000));
            p.velocity.z = zl_test_rng_range(&rng, FX(-500), FX(1000));
        }
        fps_run_command(&p, &c, &p, 0, NULL);
        ZL_CHECK(inside_arena(&p));
        if (!inside_arena(&p)) {
            zl_test_note("escaped at command %d: (%.3f %.3f %.3f) from (%.3f %.3f %.3f)", i,
                         UNITS(p.origin.x), UNITS(p.origin.y), UNITS(p.origin.z),
                         UNITS(before.x), UNITS(before.y), UNITS(before.z));
            return;
        }
        contacts += p.origin.x == FX(1008) || p.origin.x == FX(-1008) || p.origin.y == FX(1008) ||
                    p.origin.y == FX(-1008);
        crouched += (p.flags & FPS_PF_CROUCHED) != 0;
        airborne += !(p.flags & FPS_PF_ON_GROUND);
    }
    ZL_CHECK(contacts > 100 && crouched > 100 && airborne > 1000 && i - airborne > 1000);
    zl_test_note("%d commands: %d against outer walls, %d crouched, %d airborne", i, contacts,
                 crouched, airborne);
}

/* Runs forward along +x until x reaches jump_x, then jumps, then keeps
 * running for n commands. */
static void run_and_jump(fps_player *p, int jump_x, int n)
{
    zl_usercmd go = make_cmd(127, 0, 0, 0), leap = make_cmd(127, 0, FPS_BUTTON_JUMP, 0);
    int i;
    for (i = 0; i < 200 && p->origin.x < FX(jump_x); i++)
        fps_run_command(p, &go, p, 1, NULL);
    run(p, &leap, 1);
    run(p, &go, n);
}

static void test_jump_onto_crates(void)
{
    /* The 40-unit crate from the floor; it ends against the taller one. */
    fps_player p = player_at(-100, 224, 0);
    zl_usercmd hold_jump = make_cmd(127, 0, FPS_BUTTON_JUMP, 0);
    double highest = 0;
    int i;
    run_and_jump(&p, 100, 60);
    ZL_CHECK_EQ(p.origin.z, FX(40));
    ZL_CHECK(p.flags & FPS_PF_ON_GROUND);
    ZL_CHECK_EQ(p.origin.x, FX(256 - FPS_HALF_WIDTH));
    /* From there onto the 80-unit crate: forward only while airborne, so
     * the landing is not followed by a run off its far side. */
    for (i = 0; i < 60; i++) {
        zl_usercmd idle = make_cmd(0, 0, 0, 0);
        int landed = i > 0 && (p.flags & FPS_PF_ON_GROUND);
        fps_run_command(&p, landed ? &idle : &hold_jump, &p, 1, NULL);
    }
    ZL_CHECK_EQ(p.origin.z, FX(80));
    ZL_CHECK(p.flags & FPS_PF_ON_GROUND);
    /* From the floor the 80-unit crate is out of reach. */
    p = player_at(450, 224, 0);
    hold_jump.yaw = ZL_ANGLE_DEG(180);
    hold_jump.buttons = 0;
    run(&p, &hold_jump, 60); /* up to its side */
    for (i = 0; i < 200; i++) {
        fps_run_command(&p, &hold_jump, &p, 1, NULL);
        hold_jump.buttons ^= FPS_BUTTON_JUMP; /* tap jump */
        if (UNITS(p.origin.z) > highest)
            highest = UNITS(p.origin.z);
    }
    ZL_CHECK(highest < 46.0);
    ZL_CHECK_EQ(p.origin.x, FX(320 + FPS_HALF_WIDTH));
}

static void test_steps_and_ledges(void)
{
    /* Stairs of 16-unit steps are walked up without jumping. */
    fps_player p = player_at(440, -636, 0);
    zl_usercmd go = make_cmd(127, 0, 0, 0), west = make_cmd(127, 0, 0, 180);
    run(&p, &go, 60);
    ZL_CHECK_EQ(p.origin.z, FX(96));
    ZL_CHECK(p.flags & FPS_PF_ON_GROUND);
    ZL_CHECK(p.origin.x > FX(680));
    /* A 32-unit crate is a wall to a walker. */
    p = player_at(-250, 332, 0);
    run(&p, &west, 60);
    ZL_CHECK_EQ(p.origin.x, FX(-336 + FPS_HALF_WIDTH));
    ZL_CHECK_EQ(p.origin.z, 0);
    /* Walking off the platform drops back to the floor. */
    p = player_at(740, -636, 96);
    run(&p, &go, 80);
    ZL_CHECK_EQ(p.origin.z, 0);
    ZL_CHECK(p.flags & FPS_PF_ON_GROUND);
}

static void test_crouch_under_beam(void)
{
    fps_player p = player_at(-450, -250, 0);
    zl_usercmd walk = make_cmd(127, 0, 0, 180), crawl = make_cmd(127, 0, FPS_BUTTON_DUCK, 180);
    zl_usercmd stand = make_cmd(0, 0, 0, 180);
    zl_box hull;
    /* Standing, the beam (48 units up) stops a 72-unit player. */
    run(&p, &walk, 40);
    ZL_CHECK_EQ(p.origin.x, FX(-500 + FPS_HALF_WIDTH));
    /* Crouched (36) passes under; standing up beneath it is refused. */
    run(&p, &crawl, 30);
    ZL_CHECK(p.origin.x < FX(-520) && p.origin.x > FX(-680));
    run(&p, &stand, 20);
    ZL_CHECK(p.flags & FPS_PF_CROUCHED);
    hull = fps_player_hull(&p);
    ZL_CHECK_EQ(hull.max.z, FX(FPS_CROUCH_HEIGHT));
    ZL_CHECK_EQ(fps_player_eye(&p).z, FX(FPS_CROUCH_EYE));
    /* Out the other side it stands again. */
    run(&p, &crawl, 120);
    run(&p, &stand, 1);
    ZL_CHECK(!(p.flags & FPS_PF_CROUCHED));
    ZL_CHECK(p.origin.x < FX(-716));
}

static void test_speed_clamp(void)
{
    fps_player p = player_at(0, 0, 200);
    zl_usercmd none = make_cmd(0, 0, 0, 0);
    p.velocity = zl_vec3_make(FX(9000), FX(-9000), FX(-9000));
    none.msec = 1;
    run(&p, &none, 1);
    ZL_CHECK(p.velocity.x <= FX(2000) && p.velocity.y >= FX(-2000) && p.velocity.z >= FX(-2000));
}

static void test_command_is_pure(void)
{
    zl_test_rng rng;
    fps_player a = player_at(0, 0, 0), b, c;
    zl_event store[4];
    zl_events sink;
    int i, emitted = 0;
    zl_events_init(&sink, store, 4);
    zl_test_rng_seed(&rng, 42);
    for (i = 0; i < 2000; i++) {
        zl_usercmd cmd = make_cmd(0, 0, 0, 0);
        cmd.forward = (int8_t)zl_test_rng_range(&rng, -127, 127);
        cmd.buttons = (uint16_t)zl_test_rng_range(&rng, 0, 15);
        cmd.yaw = (zl_angle)zl_test_rng_u32(&rng);
        cmd.seed = (uint8_t)zl_test_rng_u32(&rng);
        cmd.weapon = (uint8_t)zl_test_rng_range(&rng, 0, 4);
        /* Replays (first_prediction 0) emit nothing and compute the same. */
        zl_events_clear(&sink);
        fps_run_command(&a, &cmd, &b, 0, &sink);
        ZL_CHECK_EQ(sink.count, 0);
        fps_run_command(&a, &cmd, &c, 1, &sink);
        emitted += (int)sink.count;
        ZL_CHECK(zl_schema_equal(&fps_player_schema, &b, &c, ZL_SCHEMA_ALL));
        /* In place gives the same result as into another state. */
        fps_run_command(&a, &cmd, &a, 0, NULL);
        ZL_CHECK(zl_schema_equal(&fps_player_schema, &a, &b, ZL_SCHEMA_ALL));
        /* The result is already what the wire carries. */
        c = b;
        zl_schema_quantize(&fps_player_schema, &c);
        ZL_CHECK(zl_schema_equal(&fps_player_schema, &b, &c, ZL_SCHEMA_ALL));
        ZL_CHECK_EQ(sink.dropped, 0);
    }
    ZL_CHECK(emitted > 100);
}

static void test_event_sink_full(void)
{
    fps_player p = player_at(0, 0, 0);
    zl_usercmd c = make_cmd(0, 0, FPS_BUTTON_JUMP | FPS_BUTTON_ATTACK, 0);
    zl_event store[1];
    zl_events sink;
    zl_events_init(&sink, store, 1);
    sink.source = 7;
    fps_run_command(&p, &c, &p, 1, &sink); /* a jump and a shot */
    ZL_CHECK_EQ(sink.count, 1);
    ZL_CHECK_EQ(sink.dropped, 1);
    ZL_CHECK_EQ(store[0].type, FPS_EV_JUMP);
    ZL_CHECK_EQ(store[0].source, 7);
    zl_events_clear(&sink);
    ZL_CHECK_EQ(sink.count + sink.dropped, 0);
}

/* Runs one command and returns how many events of `type` it emitted. */
static int count_events(fps_player *p, const zl_usercmd *c, uint16_t type)
{
    zl_event store[FPS_MAX_EVENTS_PER_COMMAND];
    zl_events sink;
    uint32_t i;
    int n = 0;
    zl_events_init(&sink, store, FPS_MAX_EVENTS_PER_COMMAND);
    fps_run_command(p, c, p, 1, &sink);
    ZL_CHECK_EQ(sink.dropped, 0);
    for (i = 0; i < sink.count; i++)
        n += store[i].type == type;
    return n;
}

static void test_rifle_rate_clip_reload(void)
{
    fps_player p = player_at(0, 0, 0);
    zl_usercmd fire = make_cmd(0, 0, FPS_BUTTON_ATTACK, 0);
    int i, shots = 0, first = -1, last = -1, reload_at = -1;
    for (i = 0; i < 400; i++) {
        int n = count_events(&p, &fire, FPS_EV_FIRE);
        ZL_CHECK(n <= 1);
        if (n && first < 0)
            first = i;
        if (n)
            last = i;
        shots += n;
        if (reload_at < 0 && (p.flags & FPS_PF_RELOADING))
            reload_at = i;
    }
    /* Held for 6.4 s: a magazine, a reload, and firing again after it. */
    ZL_CHECK(shots > 30 && shots < 60);
    ZL_CHECK(reload_at > first && reload_at < last);
    /* 30 rounds 100 ms apart (to within one 16 ms command), then an empty
     * click starts the 2.5 s reload, and firing resumes right after it. */
    p = player_at(0, 0, 0);
    shots = 0;
    for (i = 0; i < 300 && shots < 30; i++) {
        int n = count_events(&p, &fire, FPS_EV_FIRE);
        if (n && shots == 0)
            first = i;
        last = i;
        shots += n;
    }
    ZL_CHECK_EQ(shots, 30);
    ZL_CHECK(abs((last - first) * 16 - 2900) <= 16);
    ZL_CHECK_EQ(p.clip[FPS_WEAPON_RIFLE], 0);
    for (i = 0; i < 7 && !(p.flags & FPS_PF_RELOADING); i++) {
        ZL_CHECK_EQ(count_events(&p, &fire, FPS_EV_FIRE), 0);
        first = i;
    }
    ZL_CHECK(first < 6); /* the click comes once the interval is over */
    ZL_CHECK(p.flags & FPS_PF_RELOADING);
    for (i = 0; i < 2500 / 16 - 1; i++)
        ZL_CHECK_EQ(count_events(&p, &fire, FPS_EV_FIRE), 0);
    for (i = 0; i < 3; i++)
        shots += count_events(&p, &fire, FPS_EV_FIRE);
    ZL_CHECK_EQ(shots, 31);
    ZL_CHECK_EQ(p.clip[FPS_WEAPON_RIFLE], 29);
}

static void test_pistol_semi_auto_and_switch(void)
{
    fps_player p = player_at(0, 0, 0);
    zl_usercmd fire = make_cmd(0, 0, FPS_BUTTON_ATTACK, 0), idle = make_cmd(0, 0, 0, 0);
    zl_usercmd pick = idle, reload = make_cmd(0, 0, FPS_BUTTON_RELOAD, 0);
    int i, shots = 0;
    pick.weapon = FPS_WEAPON_PISTOL + 1;
    ZL_CHECK_EQ(count_events(&p, &pick, FPS_EV_SWITCH), 1);
    ZL_CHECK_EQ(p.weapon, FPS_WEAPON_PISTOL);
    /* No shot during the 500 ms switch. */
    for (i = 0; i < 500 / 16 - 1; i++)
        shots += count_events(&p, &fire, FPS_EV_FIRE);
    ZL_CHECK_EQ(shots, 0);
    run(&p, &idle, 2);
    /* Held trigger: one shot only. */
    for (i = 0; i < 50; i++)
        shots += count_events(&p, &fire, FPS_EV_FIRE);
    ZL_CHECK_EQ(shots, 1);
    /* Tapping every other command: limited by the 150 ms interval. */
    shots = 0;
    for (i = 0; i < 100; i++)
        shots += count_events(&p, (i & 1) ? &idle : &fire, FPS_EV_FIRE);
    ZL_CHECK(shots >= 10 && shots <= 11); /* 1600 ms / 150 ms */
    /* Reload a partial magazine once the last shot's interval is over:
     * 2.2 s, then full. */
    run(&p, &idle, 10);
    ZL_CHECK(p.clip[FPS_WEAPON_PISTOL] < 12);
    ZL_CHECK_EQ(count_events(&p, &reload, FPS_EV_RELOAD), 1);
    run(&p, &idle, 2200 / 16 + 1);
    ZL_CHECK_EQ(p.clip[FPS_WEAPON_PISTOL], 12);
    ZL_CHECK(!(p.flags & FPS_PF_RELOADING));
    /* A full magazine does not reload. */
    ZL_CHECK_EQ(count_events(&p, &reload, FPS_EV_RELOAD), 0);
}

static double angle_between(zl_vec3 a, zl_vec3 b)
{
    double d = (UNITS(a.x) * UNITS(b.x) + UNITS(a.y) * UNITS(b.y) + UNITS(a.z) * UNITS(b.z)) /
               sqrt(UNITS(a.x) * UNITS(a.x) + UNITS(a.y) * UNITS(a.y) + UNITS(a.z) * UNITS(a.z)) /
               sqrt(UNITS(b.x) * UNITS(b.x) + UNITS(b.y) * UNITS(b.y) + UNITS(b.z) * UNITS(b.z));
    return acos(d > 1 ? 1 : d) * 180.0 / 3.14159265358979;
}

static zl_event first_shot(fps_player p, const zl_usercmd *c)
{
    zl_event store[FPS_MAX_EVENTS_PER_COMMAND];
    zl_events sink;
    uint32_t i;
    zl_events_init(&sink, store, FPS_MAX_EVENTS_PER_COMMAND);
    fps_run_command(&p, c, &p, 1, &sink);
    for (i = 0; i < sink.count; i++)
        if (store[i].type == FPS_EV_FIRE || store[i].type == FPS_EV_LAUNCH)
            return store[i];
    memset(store, 0, sizeof store[0]);
    return store[0];
}

static void test_spread_is_seeded(void)
{
    fps_player p = player_at(0, 0, 0);
    zl_usercmd c = make_cmd(0, 0, FPS_BUTTON_ATTACK, 30);
    zl_vec3 centre;
    double widest = 0;
    int seed, distinct = 0;
    zl_event e0, e1;
    c.pitch = ZL_ANGLE_DEG(10);
    centre = zl_vec3_make((zl_fx)(65536.0 * cos(10 * 3.14159265358979 / 180) * cos(30 * 3.14159265358979 / 180)),
                          (zl_fx)(65536.0 * cos(10 * 3.14159265358979 / 180) * sin(30 * 3.14159265358979 / 180)),
                          (zl_fx)(65536.0 * sin(10 * 3.14159265358979 / 180)));
    for (seed = 0; seed < 256; seed++) {
        double a;
        c.seed = (uint8_t)seed;
        e0 = first_shot(p, &c);
        e1 = first_shot(p, &c);
        ZL_CHECK_EQ(e0.type, FPS_EV_FIRE);
        ZL_CHECK(zl_vec3_equal(e0.dir, e1.dir)); /* same seed, same shot */
        ZL_CHECK_EQ(e0.origin.z, FX(FPS_STAND_EYE));
        a = angle_between(e0.dir, centre);
        if (a > widest)
            widest = a;
        c.seed = (uint8_t)(seed + 1);
        e1 = first_shot(p, &c);
        distinct += !zl_vec3_equal(e0.dir, e1.dir);
    }
    /* The rifle strays at most 1 degree per axis: 1.42 degrees overall. */
    ZL_CHECK(widest <= 1.45 && widest > 0.5);
    ZL_CHECK(distinct > 240);
    /* The launcher has no spread. */
    p.weapon = FPS_WEAPON_LAUNCHER;
    e0 = first_shot(p, &c);
    ZL_CHECK_EQ(e0.type, FPS_EV_LAUNCH);
    ZL_CHECK(angle_between(e0.dir, centre) < 0.01);
    zl_test_note("rifle spread: widest shot %.3f degrees off the aim", widest);
}

static void test_hitboxes(void)
{
    fps_player p = player_at(100, 200, 0);
    zl_hitbox hb[2];
    ZL_CHECK_EQ(fps_player_hitboxes(&p, 5, hb, 2), 2);
    ZL_CHECK(zl_vec3_equal(hb[0].box.min, zl_vec3_make(FX(84), FX(184), 0)));
    ZL_CHECK(zl_vec3_equal(hb[0].box.max, zl_vec3_make(FX(116), FX(216), FX(60))));
    ZL_CHECK(zl_vec3_equal(hb[1].box.min, zl_vec3_make(FX(93), FX(193), FX(60))));
    ZL_CHECK(zl_vec3_equal(hb[1].box.max, zl_vec3_make(FX(107), FX(207), FX(72))));
    ZL_CHECK(hb[0].entity == 5 && hb[1].entity == 5);
    ZL_CHECK(hb[0].part == FPS_PART_BODY && hb[1].part == FPS_PART_HEAD);
    p.flags |= FPS_PF_CROUCHED;
    ZL_CHECK_EQ(fps_player_hitboxes(&p, 5, hb, 2), 2);
    ZL_CHECK_EQ(hb[0].box.max.z, FX(24));
    ZL_CHECK_EQ(hb[1].box.min.z, FX(24));
    ZL_CHECK_EQ(hb[1].box.max.z, FX(36));
    ZL_CHECK_EQ(fps_player_hitboxes(&p, 5, hb, 1), 1);
    p.flags |= FPS_PF_DEAD;
    ZL_CHECK_EQ(fps_player_hitboxes(&p, 5, hb, 2), 0);
}

/* A little server: players 0..n-1, events resolved as they come. */
typedef struct arena {
    fps_game game;
    fps_player players[4];
    zl_event store[64];
    zl_events events;
} arena;

static void arena_init(arena *a)
{
    memset(a, 0, sizeof *a);
    fps_game_init(&a->game);
    zl_events_init(&a->events, a->store, 64);
}

static int count_type(const arena *a, uint16_t type)
{
    uint32_t i;
    int n = 0;
    for (i = 0; i < a->events.count; i++)
        n += a->store[i].type == type;
    return n;
}

/* Player k runs c; its shots ask `tracer` (NULL: the live players). */
static void arena_command(arena *a, int k, const zl_usercmd *c, const zl_shot_tracer *tracer)
{
    uint32_t first = a->events.count, i;
    a->events.source = k;
    fps_run_command(&a->players[k], c, &a->players[k], 1, &a->events);
    for (i = first; i < a->events.count; i++)
        fps_resolve_event(&a->game, &a->store[i], a->players, 4, tracer, &a->events);
}

/* A stand-in for lag compensation: traces against 4 given states and
 * remembers what it was asked. */
typedef struct fixed_tracer {
    const fps_player *states;
    int32_t shooter;
    int calls;
} fixed_tracer;

static int fixed_trace(void *ctx, const zl_vec3 *start, const zl_vec3 *end, int32_t shooter,
                       zl_trace *out)
{
    fixed_tracer *f = (fixed_tracer *)ctx;
    zl_hitbox boxes[8];
    int i, n = 0;
    f->shooter = shooter;
    f->calls++;
    for (i = 0; i < 4; i++)
        if (i != shooter)
            n += fps_player_hitboxes(&f->states[i], i, boxes + n, 2);
    return fps_trace(start, end, boxes, n, out);
}

static void test_hitscan_damage_kill_respawn(void)
{
    arena a;
    zl_usercmd shoot = make_cmd(0, 0, FPS_BUTTON_ATTACK, 0), idle = make_cmd(0, 0, 0, 0);
    int i;
    arena_init(&a);
    a.players[0] = player_at(0, 0, 0);
    a.players[1] = player_at(200, 0, 0);
    a.players[2] = player_at(-900, 900, 0);
    a.players[3] = player_at(-900, -900, 0);
    /* Level aim from the eye (64) meets the head box (60..72). */
    arena_command(&a, 0, &shoot, NULL);
    ZL_CHECK_EQ(a.players[1].health, 100 - 25 * FPS_HEAD_MULTIPLIER);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_HIT), 1);
    ZL_CHECK_EQ(a.store[1].target, 1);
    ZL_CHECK_EQ(a.store[1].source, 0);
    ZL_CHECK_EQ(a.store[1].param, 75);
    ZL_CHECK_EQ(a.store[1].origin.x, FX(200 - 7));
    /* Aimed 10 degrees down (about 35 units lower at 200): the body. */
    shoot.pitch = (zl_angle)(65536 - ZL_ANGLE_DEG(10));
    for (i = 0; i < 6; i++)
        arena_command(&a, 0, &idle, NULL);
    arena_command(&a, 0, &shoot, NULL);
    ZL_CHECK_EQ(a.players[1].health, 25 - 25);
    ZL_CHECK(a.players[1].flags & FPS_PF_DEAD);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_KILL), 1);
    ZL_CHECK_EQ(a.players[1].respawn_time, FPS_RESPAWN_MS);
    /* The dead cannot act, be hit or take damage. */
    zl_events_clear(&a.events);
    for (i = 0; i < 7; i++)
        arena_command(&a, 0, &shoot, NULL);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_KILL), 0);
    ZL_CHECK(count_type(&a, FPS_EV_HIT) >= 1);
    for (i = 0; i < (int)a.events.count; i++)
        ZL_CHECK(a.store[i].target != 1);
    arena_command(&a, 1, &shoot, NULL);
    ZL_CHECK_EQ(a.players[1].weapon_time, 0);
    /* Respawn after two seconds of server ticks, marked as a teleport. */
    zl_events_clear(&a.events);
    for (i = 0; i < 124; i++)
        fps_tick_entities(&a.game, a.players, 4, 16, &a.events);
    ZL_CHECK(a.players[1].flags & FPS_PF_DEAD);
    fps_tick_entities(&a.game, a.players, 4, 16, &a.events);
    ZL_CHECK(!(a.players[1].flags & FPS_PF_DEAD));
    ZL_CHECK_EQ(a.players[1].health, FPS_HEALTH_MAX);
    ZL_CHECK_EQ(a.players[1].teleport, 1);
    ZL_CHECK_EQ(a.players[1].clip[FPS_WEAPON_RIFLE], 30);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_RESPAWN), 1);
    ZL_CHECK_EQ(a.store[0].target, 1);
}

static void test_cover_and_lag_compensation_hook(void)
{
    arena a;
    fps_player rewound[4];
    fixed_tracer ft = {NULL, -1, 0};
    zl_shot_tracer tracer;
    zl_usercmd shoot = make_cmd(0, 0, FPS_BUTTON_ATTACK, 0);
    arena_init(&a);
    /* Behind the 80-unit crate, a standing target is covered. */
    a.players[0] = player_at(150, 224, 0);
    a.players[1] = player_at(400, 224, 0);
    a.players[2] = player_at(-900, 900, 0);
    a.players[3] = player_at(-900, -900, 0);
    arena_command(&a, 0, &shoot, NULL);
    ZL_CHECK_EQ(a.players[1].health, 100);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_HIT), 1);
    ZL_CHECK_EQ(a.store[1].target, -1);
    ZL_CHECK_EQ(a.store[1].origin.x, FX(256));
    /* Shots ask the tracer, damage lands on the live players: the target
     * is now at y=0 but was at y=100 when the shooter fired. */
    arena_init(&a);
    a.players[0] = player_at(-300, 100, 0);
    a.players[1] = player_at(0, 0, 0);
    a.players[2] = player_at(-900, 900, 0);
    a.players[3] = player_at(-900, -900, 0);
    memcpy(rewound, a.players, sizeof rewound);
    rewound[1].origin.y = FX(100);
    ft.states = rewound;
    tracer.ctx = &ft;
    tracer.trace = fixed_trace;
    arena_command(&a, 0, &shoot, &tracer);
    ZL_CHECK_EQ(ft.calls, 1);
    ZL_CHECK_EQ(ft.shooter, 0);
    ZL_CHECK_EQ(a.players[1].health, 25);
    ZL_CHECK_EQ(rewound[1].health, 100);
    arena_command(&a, 0, &shoot, &tracer); /* within the fire interval: no shot */
    ZL_CHECK_EQ(ft.calls, 1);
    ZL_CHECK_EQ(a.players[1].health, 25);
    /* Against the live players the same shot misses: the target moved. */
    a.players[0].weapon_time = 0;
    zl_events_clear(&a.events);
    arena_command(&a, 0, &shoot, NULL);
    ZL_CHECK_EQ(a.players[1].health, 25);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_FIRE), 1);
    /* A tracer naming a slot the server did not hand in hurts nobody. */
    rewound[1].origin.y = FX(900);
    rewound[3] = player_at(0, 100, 0);
    a.players[0].weapon_time = 0;
    zl_events_clear(&a.events);
    a.events.source = 0;
    fps_run_command(&a.players[0], &shoot, &a.players[0], 1, &a.events);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_FIRE), 1);
    fps_resolve_event(&a.game, &a.store[0], a.players, 3, &tracer, &a.events);
    ZL_CHECK_EQ(ft.calls, 2);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_HIT), 0);
    ZL_CHECK_EQ(a.players[1].health, 25);
}

static void test_rocket(void)
{
    arena a;
    zl_usercmd pick = make_cmd(0, 0, 0, 0), shoot = make_cmd(0, 0, FPS_BUTTON_ATTACK, 0);
    zl_usercmd idle = make_cmd(0, 0, 0, 0);
    zl_vec3 blast = {0, 0, 0};
    double dx, dy, dz, dist;
    int i, expected;
    arena_init(&a);
    pick.weapon = FPS_WEAPON_LAUNCHER + 1;
    a.players[0] = player_at(0, 0, 0);
    a.players[1] = player_at(980, 40, 0); /* near the east wall, off the line */
    a.players[2] = player_at(-900, 900, 0);
    a.players[3] = player_at(-900, -900, 0);
    arena_command(&a, 0, &pick, NULL);
    for (i = 0; i < 40; i++)
        arena_command(&a, 0, &idle, NULL);
    zl_events_clear(&a.events);
    arena_command(&a, 0, &shoot, NULL);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_LAUNCH), 1);
    ZL_CHECK_EQ(a.game.entities[0].type, FPS_ENTITY_ROCKET);
    ZL_CHECK_EQ(a.game.entities[0].velocity.x, FX(1000));
    /* It flies through its owner at 1000 u/s, 16 units a tick. */
    fps_tick_entities(&a.game, a.players, 4, 16, &a.events);
    ZL_CHECK_EQ(a.game.entities[0].origin.x, FX(16)); /* 16.0064 on the 1/32 grid */
    for (i = 0; i < 100 && a.game.entities[0].type; i++)
        fps_tick_entities(&a.game, a.players, 4, 16, &a.events);
    ZL_CHECK_EQ(a.game.entities[0].type, FPS_ENTITY_NONE);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_EXPLODE), 1);
    /* Burst on the east wall at eye height; splash falls off with the
     * distance to the target's hull (x 964..996, y 24..56, z 0..72). */
    for (i = 0; i < (int)a.events.count; i++)
        if (a.store[i].type == FPS_EV_EXPLODE)
            blast = a.store[i].origin;
    ZL_CHECK_EQ(blast.x, FX(1024));
    ZL_CHECK_EQ(blast.z, FX(FPS_STAND_EYE));
    dx = UNITS(blast.x) - 996.0;
    dy = 24.0 - UNITS(blast.y);
    dz = 0; /* the blast is between the hull's bottom and top */
    dist = sqrt(dx * dx + dy * dy + dz * dz);
    expected = (int)(100.0 * (160.0 - dist) / 160.0);
    ZL_CHECK(abs((100 - a.players[1].health) - expected) <= 1);
    /* A direct hit bursts on the body: full damage. */
    a.players[1] = player_at(300, 0, 0);
    for (i = 0; i < 60; i++) /* the trigger released, the interval over */
        arena_command(&a, 0, &idle, NULL);
    arena_command(&a, 0, &shoot, NULL);
    for (i = 0; i < 40 && a.players[1].health == 100; i++)
        fps_tick_entities(&a.game, a.players, 4, 16, &a.events);
    ZL_CHECK(a.players[1].flags & FPS_PF_DEAD);
    zl_test_note("splash at %.1f units did %d damage", dist, expected);
}

/* A slot whose client left is out of every rule until it is joined
 * again: shots and rockets pass through, blasts spare it, it cannot fire
 * and, dead, it does not respawn. */
static void test_left_slot_out_of_the_rules(void)
{
    arena a;
    zl_usercmd pick = make_cmd(0, 0, 0, 0), shoot = make_cmd(0, 0, FPS_BUTTON_ATTACK, 0);
    zl_usercmd idle = make_cmd(0, 0, 0, 0);
    int i;
    arena_init(&a);
    a.players[0] = player_at(0, 0, 0);
    a.players[1] = player_at(200, 0, 0);
    a.players[2] = player_at(-900, 900, 0);
    a.players[3] = player_at(-900, -900, 0);
    fps_player_leave(&a.game, 1);
    arena_command(&a, 0, &shoot, NULL);
    ZL_CHECK_EQ(a.players[1].health, 100);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_HIT), 1); /* the wall behind */
    for (i = 0; i < (int)a.events.count; i++)
        ZL_CHECK(a.store[i].target != 1);
    /* A rocket flies through the slot and bursts on the wall beyond,
     * 800 units away: the slot takes no splash either way. */
    pick.weapon = FPS_WEAPON_LAUNCHER + 1;
    arena_command(&a, 0, &pick, NULL);
    for (i = 0; i < 60; i++)
        arena_command(&a, 0, &idle, NULL);
    zl_events_clear(&a.events);
    arena_command(&a, 0, &shoot, NULL);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_LAUNCH), 1);
    for (i = 0; i < 100 && a.game.entities[0].type; i++)
        fps_tick_entities(&a.game, a.players, 4, 16, &a.events);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_EXPLODE), 1);
    for (i = 0; i < (int)a.events.count; i++)
        if (a.store[i].type == FPS_EV_EXPLODE)
            ZL_CHECK(a.store[i].origin.x > FX(900));
    ZL_CHECK_EQ(a.players[1].health, 100);
    /* The slot's own trigger does nothing. */
    zl_events_clear(&a.events);
    arena_command(&a, 1, &shoot, NULL);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_HIT), 0);
    ZL_CHECK_EQ(a.players[0].health, 100);
    /* Left dead: never respawned. */
    a.players[1].flags |= FPS_PF_DEAD;
    a.players[1].respawn_time = 16;
    for (i = 0; i < 10; i++)
        fps_tick_entities(&a.game, a.players, 4, 16, &a.events);
    ZL_CHECK(a.players[1].flags & FPS_PF_DEAD);
    ZL_CHECK_EQ(count_type(&a, FPS_EV_RESPAWN), 0);
    /* Joined again: back in the game. */
    fps_player_join(&a.game, &a.players[1], 1);
    a.players[1] = player_at(200, 0, 0);
    for (i = 0; i < 60; i++)
        arena_command(&a, 0, &idle, NULL);
    pick.weapon = FPS_WEAPON_RIFLE + 1;
    arena_command(&a, 0, &pick, NULL);
    for (i = 0; i < 60; i++)
        arena_command(&a, 0, &idle, NULL);
    zl_events_clear(&a.events);
    arena_command(&a, 0, &shoot, NULL);
    ZL_CHECK(a.players[1].health < 100);
}

static void test_entities_full(void)
{
    fps_game g;
    fps_player players[1];
    zl_event ev = {FPS_EV_LAUNCH, FPS_WEAPON_LAUNCHER, 0, -1, {0, 0, FX(64)}, {FX(1), 0, 0}, 0};
    int i;
    fps_game_init(&g);
    players[0] = player_at(0, 0, 0);
    for (i = 0; i < FPS_MAX_ENTITIES + 3; i++)
        fps_resolve_event(&g, &ev, players, 1, NULL, NULL);
    ZL_CHECK_EQ(g.entities_refused, 3);
    ev.source = 5; /* not a player: ignored */
    fps_resolve_event(&g, &ev, players, 1, NULL, NULL);
    ZL_CHECK_EQ(g.entities_refused, 3);
}

static void test_trace_rules(void)
{
    zl_hitbox hb[2];
    zl_trace tr;
    fps_player p = player_at(0, 0, 0);
    zl_vec3 s = zl_vec3_make(FX(-500), 0, FX(30)), e = zl_vec3_make(FX(500), 0, FX(30));
    fps_player_hitboxes(&p, 3, hb, 2);
    ZL_CHECK_EQ(fps_trace(&s, &e, hb, 2, &tr), 1);
    ZL_CHECK(tr.entity == 3 && tr.part == FPS_PART_BODY);
    ZL_CHECK_EQ(tr.hit.point.x, FX(-16));
    ZL_CHECK_EQ(tr.hit.distance, FX(484));
    /* Point blank: starting inside the body hits at distance 0. */
    s.x = 0;
    ZL_CHECK_EQ(fps_trace(&s, &e, hb, 2, &tr), 1);
    ZL_CHECK(tr.entity == 3 && tr.hit.distance == 0);
    /* Starting inside a wall, the trace leaves it and finds the body. */
    p = player_at(1024 - 16, 0, 0);
    fps_player_hitboxes(&p, 3, hb, 2);
    s = zl_vec3_make(FX(1040), 0, FX(30));
    e = zl_vec3_make(FX(900), 0, FX(30));
    ZL_CHECK_EQ(fps_trace(&s, &e, hb, 2, &tr), 1);
    ZL_CHECK_EQ(tr.entity, 3);
    ZL_CHECK_EQ(tr.hit.point.x, FX(1024));
    /* A hitbox met at the same point as a wall (here one sunk into the
     * crate) loses to it: cover protects. One sticking out is hit. */
    hb[0].box.min = zl_vec3_make(FX(192), FX(192), 0);
    hb[0].box.max = zl_vec3_make(FX(256), FX(256), FX(40));
    s = zl_vec3_make(FX(100), FX(224), FX(20));
    e = zl_vec3_make(FX(300), FX(224), FX(20));
    ZL_CHECK_EQ(fps_trace(&s, &e, hb, 1, &tr), 1);
    ZL_CHECK_EQ(tr.entity, ZL_TRACE_WORLD);
    ZL_CHECK_EQ(tr.hit.point.x, FX(192));
    hb[0].box.min.x = FX(180);
    ZL_CHECK_EQ(fps_trace(&s, &e, hb, 1, &tr), 1);
    ZL_CHECK_EQ(tr.entity, 3);
    /* Out of the supported range. */
    e.x = FX(9000);
    ZL_CHECK_EQ(fps_trace(&s, &e, hb, 2, &tr), ZL_ERR_INVALID);
    /* Nothing on the way. */
    s = zl_vec3_make(0, 0, FX(100));
    e = zl_vec3_make(FX(100), 0, FX(100));
    ZL_CHECK_EQ(fps_trace(&s, &e, NULL, 0, &tr), 0);
}

static void test_game_interface(void)
{
    fps_game g;
    zl_game game;
    fps_player a = player_at(0, 0, 0), b, c;
    zl_usercmd cmd = make_cmd(127, 0, FPS_BUTTON_ATTACK, 10);
    zl_hitbox hb[2];
    zl_trace tr;
    zl_vec3 s = zl_vec3_make(FX(-100), 0, FX(30)), e = zl_vec3_make(FX(100), 0, FX(30));
    fps_game_init(&g);
    game = fps_game_interface(&g);
    ZL_CHECK(game.ctx == &g && game.player_schema == &fps_player_schema);
    ZL_CHECK(game.entity_schema == &fps_entity_schema);
    game.run_command(game.ctx, &a, &cmd, &b, 1, NULL);
    fps_run_command(&a, &cmd, &c, 1, NULL);
    ZL_CHECK(zl_schema_equal(&fps_player_schema, &b, &c, ZL_SCHEMA_ALL));
    ZL_CHECK_EQ(game.hitboxes(game.ctx, &a, 2, hb, 2), 2);
    ZL_CHECK_EQ(game.trace(game.ctx, &s, &e, hb, 2, &tr), 1);
    ZL_CHECK_EQ(tr.entity, 2);
    game.tick_entities(game.ctx, &a, 1, 16, NULL);
    ZL_CHECK_EQ(a.health, 100);
}

void zl_suite_fps(void)
{
    ZL_RUN(test_schemas_and_time);
    ZL_RUN(test_ground_acceleration_and_friction);
    ZL_RUN(test_diagonal_and_crouch_speed);
    ZL_RUN(test_jump);
    ZL_RUN(test_air_control);
    ZL_RUN(test_walls_slide_and_stop);
    ZL_RUN(test_never_inside_walls);
    ZL_RUN(test_jump_onto_crates);
    ZL_RUN(test_steps_and_ledges);
    ZL_RUN(test_crouch_under_beam);
    ZL_RUN(test_speed_clamp);
    ZL_RUN(test_command_is_pure);
    ZL_RUN(test_event_sink_full);
    ZL_RUN(test_rifle_rate_clip_reload);
    ZL_RUN(test_pistol_semi_auto_and_switch);
    ZL_RUN(test_spread_is_seeded);
    ZL_RUN(test_hitboxes);
    ZL_RUN(test_hitscan_damage_kill_respawn);
    ZL_RUN(test_cover_and_lag_compensation_hook);
    ZL_RUN(test_rocket);
    ZL_RUN(test_left_slot_out_of_the_rules);
    ZL_RUN(test_entities_full);
    ZL_RUN(test_trace_rules);
    ZL_RUN(test_game_interface);
}
