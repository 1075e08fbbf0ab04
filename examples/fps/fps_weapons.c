/* fps_weapons.c - the predicted half of the weapons: fire intervals,
 * magazines, reloads, switching and seeded spread, timed in milliseconds. */
#include "fps.h"

#define SWITCH_MS 500

static const zl_vec3 no_dir = {0, 0, 0};

typedef struct weapon_def {
    uint16_t interval_ms; /* between shots */
    uint16_t reload_ms;
    uint8_t clip;
    uint8_t damage;
    uint8_t automatic;  /* fires while held; else one shot per press */
    uint8_t projectile; /* launches a rocket instead of a hitscan trace */
    zl_angle spread;    /* largest deviation of a shot, each way */
} weapon_def;

static const weapon_def weapons[FPS_WEAPON_COUNT] = {
    {100, 2500, 30, 25, 1, 0, ZL_ANGLE_DEG(1)}, /* rifle */
    {150, 2200, 12, 20, 0, 0, 91},              /* pistol: half a degree */
    {800, 3000, 4, 100, 0, 1, 0},               /* rocket launcher */
};

int fps_weapon_clip_size(int weapon)
{
    return weapons[weapon].clip;
}

int fps_weapon_damage(int weapon)
{
    return weapons[weapon].damage;
}

zl_vec3 fps_player_eye(const fps_player *p)
{
    int eye = (p->flags & FPS_PF_CROUCHED) ? FPS_CROUCH_EYE : FPS_STAND_EYE;
    return zl_vec3_make(p->origin.x, p->origin.y, p->origin.z + ZL_FX_INT(eye));
}

/* Spread from the command's seed: client and server draw the same numbers,
 * so a predicted shot and the server's go the same way. A multiplicative
 * hash turns the seed into two bytes, each a deviation in [-1, 1) of the
 * spread (which = 0 for yaw, 1 for pitch). */
static int32_t spread_offset(uint8_t seed, unsigned which, zl_angle spread)
{
    uint32_t h = ((uint32_t)seed + 1u) * 2654435761u;
    int32_t r = (int32_t)((h >> (8u + 8u * which)) & 0xFFu) - 128;
    return r * spread / 128; /* C99 division truncates toward zero */
}

zl_vec3 fps_aim(zl_angle yaw, zl_angle pitch)
{
    zl_fx cp = zl_cos(pitch);
    return zl_vec3_make(zl_fx_mul(cp, zl_cos(yaw)), zl_fx_mul(cp, zl_sin(yaw)), zl_sin(pitch));
}

/* Weapon events leave from the eye and name the weapon in hand. */
static void weapon_event(const fps_player *p, uint16_t type, zl_vec3 dir, int emit,
                         zl_events *events)
{
    if (emit)
        fps_emit(events, type, p->weapon, -1, fps_player_eye(p), dir);
}

static int32_t start_reload(fps_player *p, int emit, zl_events *events)
{
    p->flags |= FPS_PF_RELOADING;
    weapon_event(p, FPS_EV_RELOAD, no_dir, emit, events);
    return weapons[p->weapon].reload_ms;
}

void fps_weapons(fps_player *p, const zl_usercmd *cmd, int emit, zl_events *events)
{
    const weapon_def *w = &weapons[p->weapon];
    int attack = (cmd->buttons & FPS_BUTTON_ATTACK) != 0;
    /* Time left may go below zero within this command: a shot then carries
     * the overshoot into the next interval, so the fire rate does not
     * depend on how commands slice time (one shot per command at most). */
    int32_t t = (int32_t)p->weapon_time - (int32_t)cmd->msec;

    if (p->flags & FPS_PF_DEAD)
        return;
    if ((p->flags & FPS_PF_RELOADING) && t <= 0) {
        p->clip[p->weapon] = w->clip;
        p->flags &= (uint8_t)~FPS_PF_RELOADING;
    }

    if (cmd->weapon >= 1 && cmd->weapon <= FPS_WEAPON_COUNT && cmd->weapon - 1 != p->weapon) {
        p->weapon = (uint8_t)(cmd->weapon - 1);
        p->flags &= (uint8_t)~FPS_PF_RELOADING; /* a switch abandons a reload */
        t = SWITCH_MS;
        weapon_event(p, FPS_EV_SWITCH, no_dir, emit, events);
    } else if ((cmd->buttons & FPS_BUTTON_RELOAD) && !(p->flags & FPS_PF_RELOADING) &&
               p->clip[p->weapon] < w->clip && t <= 0) {
        t = start_reload(p, emit, events);
    } else if (attack && t <= 0 && !(p->flags & FPS_PF_RELOADING) &&
               (w->automatic || !(p->flags & FPS_PF_ATTACK_HELD))) {
        if (p->clip[p->weapon] == 0) {
            weapon_event(p, FPS_EV_EMPTY, no_dir, emit, events);
            t = start_reload(p, emit, events);
        } else {
            zl_angle yaw = (zl_angle)(p->yaw + spread_offset(cmd->seed, 0, w->spread));
            zl_angle pitch = (zl_angle)(p->pitch + spread_offset(cmd->seed, 1, w->spread));
            p->clip[p->weapon]--;
            t += w->interval_ms;
            weapon_event(p, w->projectile ? FPS_EV_LAUNCH : FPS_EV_FIRE, fps_aim(yaw, pitch), emit,
                         events);
        }
    } else if (attack && !(p->flags & FPS_PF_ATTACK_HELD) && emit) {
        /* A fresh press the weapon could not answer: too early after the
         * last shot, or mid-reload. A held trigger is how automatic fire
         * is asked for and is not reported. */
        fps_emit(events, FPS_EV_REFUSED, FPS_REFUSED_EARLY, -1, fps_player_eye(p), no_dir);
    }

    p->weapon_time = (uint16_t)(t > 0 ? t : 0);
    if (attack)
        p->flags |= FPS_PF_ATTACK_HELD;
    else
        p->flags &= (uint8_t)~FPS_PF_ATTACK_HELD;
}
