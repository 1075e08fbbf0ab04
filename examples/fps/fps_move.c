/* fps_move.c - player movement in the spirit of Half-Life's pm_shared:
 * friction, ground and air acceleration, gravity, jumping, crouching, and
 * collide-and-slide with stepping, all in Q16.16 so prediction is exact. */
#include "fps.h"

#define MAX_SPEED ZL_FX_INT(320)
#define CROUCH_SPEED ZL_FX_RATIO(320, 3) /* a third of full speed */
#define ACCELERATE 10
#define AIR_ACCELERATE 10
#define AIR_WISH_CAP ZL_FX_INT(30) /* what makes air strafing work */
#define FRICTION 4
#define STOP_SPEED ZL_FX_INT(100)
#define HALF_GRAVITY ZL_FX_INT(400) /* gravity 800, applied half before and
                                       half after the move (exact parabola) */
#define JUMP_SPEED ZL_FX_INT(268)   /* sqrt(2 * 800 * 45): a 45-unit jump */
#define STEP_HEIGHT ZL_FX_INT(18)
#define MAX_VELOCITY ZL_FX_INT(2000)
#define GROUND_PROBE ZL_FX_INT(2)  /* how far below the feet still counts */
#define JUMPING_SPEED ZL_FX_INT(180) /* rising faster than this: airborne */
#define FOOTSTEP_SPEED ZL_FX_INT(150)
#define FOOTSTEP_MS 300
#define MAX_BUMPS 4 /* slides per move: three axes, plus one to spare */
#define PITCH_LIMIT ZL_ANGLE_DEG(89)

zl_fx fps_msec_to_seconds(uint32_t msec)
{
    return (zl_fx)((msec * 65536u + 500u) / 1000u);
}

/* Standing, then crouched. */
static const zl_box hulls[2] = {
    {{ZL_FX_INT(-FPS_HALF_WIDTH), ZL_FX_INT(-FPS_HALF_WIDTH), 0},
     {ZL_FX_INT(FPS_HALF_WIDTH), ZL_FX_INT(FPS_HALF_WIDTH), ZL_FX_INT(FPS_STAND_HEIGHT)}},
    {{ZL_FX_INT(-FPS_HALF_WIDTH), ZL_FX_INT(-FPS_HALF_WIDTH), 0},
     {ZL_FX_INT(FPS_HALF_WIDTH), ZL_FX_INT(FPS_HALF_WIDTH), ZL_FX_INT(FPS_CROUCH_HEIGHT)}},
};

static const zl_box *hull_of(const fps_player *p)
{
    return &hulls[(p->flags & FPS_PF_CROUCHED) != 0];
}

zl_box fps_hull(int crouched)
{
    return hulls[crouched != 0];
}

zl_box fps_player_hull(const fps_player *p)
{
    return *hull_of(p);
}

static zl_fx clamp_fx(zl_fx v, zl_fx lo, zl_fx hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* a * b / c truncated toward zero, exact in 64 bits (c > 0). */
static zl_fx mul_div(zl_fx a, zl_fx b, zl_fx c)
{
    return (zl_fx)((int64_t)a * b / c);
}

/* Crouch at once; stand up only where the standing hull fits. */
static void update_stance(fps_player *p, uint16_t buttons)
{
    if (buttons & FPS_BUTTON_DUCK) {
        p->flags |= FPS_PF_CROUCHED;
    } else if (p->flags & FPS_PF_CROUCHED) {
        if (!fps_world_blocked(&p->origin, &hulls[0]))
            p->flags &= (uint8_t)~FPS_PF_CROUCHED;
    }
}

/* On the ground when a floor is within GROUND_PROBE below and the player is
 * not rising fast; then the feet snap onto it (Half-Life does the same), so
 * walking down gentle slopes of steps keeps contact. */
static void categorize(fps_player *p)
{
    zl_vec3 below = p->origin;
    zl_hit hit;
    p->flags &= (uint8_t)~FPS_PF_ON_GROUND;
    if (p->velocity.z > JUMPING_SPEED)
        return;
    below.z -= GROUND_PROBE;
    if (fps_world_sweep(&p->origin, &below, hull_of(p), &hit) == 1 && hit.normal > 0) {
        p->flags |= FPS_PF_ON_GROUND;
        p->origin = hit.point;
    }
}

static void friction(fps_player *p, zl_fx dt)
{
    zl_fx speed = zl_vec3_length(zl_vec3_make(p->velocity.x, p->velocity.y, 0));
    zl_fx control, drop, newspeed;
    if (speed == 0)
        return;
    /* Below STOP_SPEED friction acts as if at STOP_SPEED: slow walks stop. */
    control = speed < STOP_SPEED ? STOP_SPEED : speed;
    drop = zl_fx_mul(zl_fx_mul(control, ZL_FX_INT(FRICTION)), dt);
    newspeed = speed > drop ? speed - drop : 0;
    p->velocity.x = mul_div(p->velocity.x, newspeed, speed);
    p->velocity.y = mul_div(p->velocity.y, newspeed, speed);
}

/* Quake's accelerate: add speed along wishdir up to wishspeed (capped at
 * cap for the comparison only: in the air that is 30, which allows
 * strafing without allowing speed from nothing). */
static void accelerate(fps_player *p, zl_vec3 wishdir, zl_fx wishspeed, zl_fx cap, int accel,
                       zl_fx dt)
{
    zl_fx current = zl_vec3_dot(p->velocity, wishdir);
    zl_fx add = (wishspeed < cap ? wishspeed : cap) - current;
    zl_fx gain;
    if (add <= 0)
        return;
    gain = zl_fx_mul(zl_fx_mul(ZL_FX_INT(accel), dt), wishspeed);
    if (gain > add)
        gain = add;
    p->velocity = zl_vec3_add(p->velocity, zl_vec3_scale(wishdir, gain));
}

static void clamp_velocity(fps_player *p)
{
    p->velocity.x = clamp_fx(p->velocity.x, -MAX_VELOCITY, MAX_VELOCITY);
    p->velocity.y = clamp_fx(p->velocity.y, -MAX_VELOCITY, MAX_VELOCITY);
    p->velocity.z = clamp_fx(p->velocity.z, -MAX_VELOCITY, MAX_VELOCITY);
}

/* Collide and slide: move, and at each contact drop the velocity into the
 * face (the walls are axis-aligned, so that is one component) and spend
 * the remaining time sliding along it. Returns the number of contacts. */
static int fly_move(fps_player *p, zl_fx dt)
{
    const zl_box *hull = hull_of(p);
    zl_fx time_left = dt;
    int bump;
    for (bump = 0; bump < MAX_BUMPS; bump++) {
        zl_vec3 end;
        zl_hit hit;
        if (p->velocity.x == 0 && p->velocity.y == 0 && p->velocity.z == 0)
            break;
        end = zl_vec3_add(p->origin, zl_vec3_scale(p->velocity, time_left));
        if (fps_world_sweep(&p->origin, &end, hull, &hit) != 1) {
            p->origin = end;
            break;
        }
        p->origin = hit.point;
        time_left -= zl_hit_scale(&hit, time_left);
        if (hit.axis == 0)
            p->velocity.x = 0;
        else if (hit.axis == 1)
            p->velocity.y = 0;
        else
            p->velocity.z = 0;
    }
    return bump;
}

static int64_t horizontal_dist2(zl_vec3 a, zl_vec3 b)
{
    int64_t dx = (int64_t)a.x - b.x, dy = (int64_t)a.y - b.y;
    return dx * dx + dy * dy;
}

/* Half-Life's walk: slide along the floor, and also try the same move
 * lifted by a step and set back down; keep whichever went further. That
 * is what climbs stairs and small ledges without any stair geometry. */
static void walk_move(fps_player *p, zl_fx dt)
{
    const zl_box *hull = hull_of(p);
    fps_player down = *p, up = *p;
    zl_vec3 target;
    zl_hit hit;

    /* The slide's first sweep is the plain move: nothing in the way, done. */
    if (fly_move(&down, dt) == 0) {
        *p = down;
        return;
    }

    target = up.origin;
    target.z += STEP_HEIGHT;
    if (fps_world_sweep(&up.origin, &target, hull, &hit) == 1)
        target = hit.point;
    up.origin = target;
    fly_move(&up, dt);
    target = up.origin;
    target.z -= STEP_HEIGHT;
    /* Only a floor under the lifted move makes it a step. */
    if (fps_world_sweep(&up.origin, &target, hull, &hit) != 1) {
        *p = down;
        return;
    }
    up.origin = hit.point;
    if (horizontal_dist2(down.origin, p->origin) > horizontal_dist2(up.origin, p->origin)) {
        *p = down;
        return;
    }
    up.velocity.z = down.velocity.z;
    *p = up;
}

/* The wish velocity from the command's axes on the horizontal plane: yaw 0
 * faces +x, forward is (cos, sin), right is (sin, -cos). */
static zl_vec3 wish_velocity(const fps_player *p, const zl_usercmd *cmd, zl_fx maxspeed)
{
    zl_fx c = zl_cos(p->yaw), s = zl_sin(p->yaw);
    zl_fx fwd = mul_div(maxspeed, cmd->forward, ZL_USERCMD_MOVE_MAX);
    zl_fx side = mul_div(maxspeed, cmd->side, ZL_USERCMD_MOVE_MAX);
    return zl_vec3_make(zl_fx_mul(c, fwd) + zl_fx_mul(s, side),
                        zl_fx_mul(s, fwd) - zl_fx_mul(c, side), 0);
}

static void footsteps(fps_player *p, uint32_t msec, int emit, zl_events *events)
{
    /* The floored length is below FOOTSTEP_SPEED, a whole number of raw
     * units, exactly when the squared length is below its square. */
    int64_t speed2 = horizontal_dist2(p->velocity, zl_vec3_make(0, 0, 0));
    if (!(p->flags & FPS_PF_ON_GROUND) || (p->flags & FPS_PF_CROUCHED) ||
        speed2 < (int64_t)FOOTSTEP_SPEED * FOOTSTEP_SPEED) {
        p->step_time = 0; /* the first step after stopping sounds at once */
        return;
    }
    if (p->step_time > msec) {
        p->step_time = (uint16_t)(p->step_time - msec);
        return;
    }
    p->step_time = FOOTSTEP_MS;
    if (emit)
        fps_emit(events, FPS_EV_FOOTSTEP, 0, -1, p->origin, zl_vec3_make(0, 0, 0));
}

void fps_move(fps_player *p, const zl_usercmd *cmd, int emit, zl_events *events)
{
    zl_fx dt = fps_msec_to_seconds(cmd->msec);
    zl_fx maxspeed, wishspeed;
    zl_vec3 wish, wishdir;
    int32_t asked = zl_angle_diff(0, cmd->pitch);
    int32_t pitch = asked > PITCH_LIMIT ? PITCH_LIMIT : asked < -PITCH_LIMIT ? -PITCH_LIMIT : asked;
    zl_angle view = (zl_angle)((uint32_t)pitch & 0xFFFFu);
    int dead = (p->flags & FPS_PF_DEAD) != 0;
    uint16_t buttons = dead ? 0 : cmd->buttons; /* the dead only fall */

    /* A view held past the limit is reported once, when it gets there. */
    if (pitch != asked && view != p->pitch && emit)
        fps_emit(events, FPS_EV_REFUSED, FPS_REFUSED_PITCH, -1, p->origin, zl_vec3_make(0, 0, 0));
    p->yaw = cmd->yaw;
    p->pitch = view;

    update_stance(p, buttons);
    categorize(p);
    if (p->flags & FPS_PF_ON_GROUND)
        p->velocity.z = 0;

    /* A jump takes off at the start of the command, so the whole command is
     * airborne and the arc peaks at JUMP_SPEED^2 / 2g = 44.9 units. */
    if ((buttons & FPS_BUTTON_JUMP) && (p->flags & FPS_PF_ON_GROUND) &&
        !(p->flags & FPS_PF_JUMP_HELD)) {
        p->velocity.z = JUMP_SPEED;
        p->flags &= (uint8_t)~FPS_PF_ON_GROUND;
        if (emit)
            fps_emit(events, FPS_EV_JUMP, 0, -1, p->origin, zl_vec3_make(0, 0, 0));
    }
    if (buttons & FPS_BUTTON_JUMP)
        p->flags |= FPS_PF_JUMP_HELD;
    else
        p->flags &= (uint8_t)~FPS_PF_JUMP_HELD;
    if (!(p->flags & FPS_PF_ON_GROUND))
        p->velocity.z -= zl_fx_mul(HALF_GRAVITY, dt);

    if (p->flags & FPS_PF_ON_GROUND)
        friction(p, dt);

    maxspeed = (p->flags & FPS_PF_CROUCHED) ? CROUCH_SPEED : MAX_SPEED;
    wish = dead ? zl_vec3_make(0, 0, 0) : wish_velocity(p, cmd, maxspeed);
    wishspeed = zl_vec3_length(wish);
    wishdir = zl_vec3_normalize(wish);
    if (wishspeed > maxspeed)
        wishspeed = maxspeed; /* diagonal input is not faster */
    if (p->flags & FPS_PF_ON_GROUND)
        accelerate(p, wishdir, wishspeed, wishspeed, ACCELERATE, dt);
    else
        accelerate(p, wishdir, wishspeed, AIR_WISH_CAP, AIR_ACCELERATE, dt);
    clamp_velocity(p);

    if (p->flags & FPS_PF_ON_GROUND) {
        walk_move(p, dt);
    } else {
        fly_move(p, dt);
        p->velocity.z -= zl_fx_mul(HALF_GRAVITY, dt);
    }
    categorize(p);
    if (p->flags & FPS_PF_ON_GROUND)
        p->velocity.z = 0;
    clamp_velocity(p);
    footsteps(p, cmd->msec, emit, events);
}
