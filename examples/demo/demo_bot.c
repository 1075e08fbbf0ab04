/* demo_bot.c - bot input: wander, jump and crouch at random, and aim at the
 * nearest visible player as drawn (interpolated), with a human-sized error. */
#include <string.h>

#include "demo_bot.h"

#define CHEST_HEIGHT ZL_FX_INT(40)
#define ARENA_REACH 900 /* goals stay this far from the middle */

static uint32_t next_random(demo_bot *b)
{
    /* xorshift64*: plenty for a bot. */
    b->rng ^= b->rng >> 12;
    b->rng ^= b->rng << 25;
    b->rng ^= b->rng >> 27;
    return (uint32_t)((b->rng * 2685821657736338717ull) >> 32);
}

/* A uniform integer in [lo, hi]. */
static int32_t random_range(demo_bot *b, int32_t lo, int32_t hi)
{
    return lo + (int32_t)(next_random(b) % (uint32_t)(hi - lo + 1));
}

static uint32_t frames(uint16_t msec, uint32_t ms)
{
    return ms / msec;
}

void demo_bot_init(demo_bot *b, uint64_t seed)
{
    memset(b, 0, sizeof *b);
    b->rng = seed * 0x9E3779B97F4A7C15ull + 1u;
    b->weapon = FPS_WEAPON_RIFLE;
}

static zl_vec3 chest(const fps_player *p)
{
    return zl_vec3_make(p->origin.x, p->origin.y, p->origin.z + CHEST_HEIGHT);
}

int demo_bot_nearest(const zl_client *c, int self, const fps_player *me)
{
    zl_vec3 eye = fps_player_eye(me);
    zl_fx best = ZL_FX_MAX;
    int slot, found = -1;
    for (slot = 0; slot < ZL_MAX_CLIENTS; slot++) {
        const fps_player *it = (const fps_player *)zl_client_entity(c, slot);
        zl_vec3 to;
        zl_trace tr;
        zl_fx d;
        if (slot == self || !it || (it->flags & FPS_PF_DEAD))
            continue;
        to = chest(it);
        if (fps_trace(&eye, &to, NULL, 0, &tr) != 0)
            continue; /* a wall in the way */
        d = zl_vec3_length(zl_vec3_sub(to, eye));
        if (d < best) {
            best = d;
            found = slot;
        }
    }
    return found;
}

static void choose_goal(demo_bot *b, uint16_t msec)
{
    /* One draw per statement: C leaves the order of a call's arguments
     * open, and compilers for different targets do pick differently. */
    int32_t x = random_range(b, -ARENA_REACH, ARENA_REACH);
    int32_t y = random_range(b, -ARENA_REACH, ARENA_REACH);
    b->goal = zl_vec3_make(ZL_FX_INT(x), ZL_FX_INT(y), 0);
    b->goal_until = b->frame + frames(msec, (uint32_t)random_range(b, 3000, 8000));
}

/* Walk towards the goal whatever way we look: the goal's direction in the
 * view's frame (forward along the yaw, side to its right). */
static void walk(const demo_bot *b, const fps_player *me, zl_usercmd *out)
{
    zl_angle to_goal = zl_atan2(b->goal.y - me->origin.y, b->goal.x - me->origin.x);
    zl_angle delta = (zl_angle)(to_goal - out->yaw);
    out->forward = (int8_t)(zl_cos(delta) * ZL_USERCMD_MOVE_MAX / ZL_FX_ONE);
    out->side = (int8_t)(-zl_sin(delta) * ZL_USERCMD_MOVE_MAX / ZL_FX_ONE);
}

static void aim_at(demo_bot *b, const fps_player *me, const fps_player *it, uint16_t msec,
                   zl_usercmd *out)
{
    zl_vec3 eye = fps_player_eye(me), to = zl_vec3_sub(chest(it), eye);
    zl_fx flat = zl_vec3_length(zl_vec3_make(to.x, to.y, 0));
    if (b->frame >= b->aim_until) {
        /* About three degrees each way: some shots miss, as people's do. */
        b->aim_error = random_range(b, -ZL_ANGLE_DEG(3), ZL_ANGLE_DEG(3));
        b->aim_until = b->frame + frames(msec, 400);
    }
    out->yaw = (zl_angle)(zl_atan2(to.y, to.x) + b->aim_error);
    out->pitch = zl_atan2(to.z, flat);
}

static void pull_trigger(demo_bot *b, const fps_player *me, zl_usercmd *out)
{
    /* The rifle fires while held; the others once per press. */
    if (me->weapon == FPS_WEAPON_RIFLE || !b->pulled)
        out->buttons |= FPS_BUTTON_ATTACK;
    b->pulled = (out->buttons & FPS_BUTTON_ATTACK) != 0;
}

static void choose_weapon(demo_bot *b, uint16_t msec)
{
    int32_t r = random_range(b, 0, 99);
    b->weapon = r < 55 ? FPS_WEAPON_RIFLE : r < 90 ? FPS_WEAPON_PISTOL : FPS_WEAPON_LAUNCHER;
    b->weapon_until = b->frame + frames(msec, (uint32_t)random_range(b, 4000, 9000));
}

void demo_bot_think(demo_bot *b, const zl_client *c, int self, uint16_t msec, int may_fire,
                    zl_usercmd *out)
{
    const fps_player *me = (const fps_player *)zl_client_predicted(c);
    int target;
    memset(out, 0, sizeof *out);
    out->msec = msec;
    out->seed = (uint8_t)next_random(b);
    b->frame++;
    if (!me || (me->flags & FPS_PF_DEAD)) {
        b->pulled = 0;
        return;
    }
    if (b->frame >= b->goal_until ||
        zl_vec3_length(zl_vec3_make(b->goal.x - me->origin.x, b->goal.y - me->origin.y, 0)) <
            ZL_FX_INT(64))
        choose_goal(b, msec);
    if (b->frame >= b->weapon_until)
        choose_weapon(b, msec);
    if (me->weapon != b->weapon)
        out->weapon = (uint8_t)(b->weapon + 1);
    if (next_random(b) % 250u == 0)
        out->buttons |= FPS_BUTTON_JUMP;
    if (next_random(b) % 500u == 0)
        b->crouch_until = b->frame + frames(msec, (uint32_t)random_range(b, 400, 1500));
    if (b->frame < b->crouch_until)
        out->buttons |= FPS_BUTTON_DUCK;
    target = may_fire ? demo_bot_nearest(c, self, me) : -1;
    if (target >= 0) {
        aim_at(b, me, (const fps_player *)zl_client_entity(c, target), msec, out);
        pull_trigger(b, me, out);
    } else {
        out->yaw = zl_atan2(b->goal.y - me->origin.y, b->goal.x - me->origin.x);
        b->pulled = 0;
    }
    walk(b, me, out);
}
