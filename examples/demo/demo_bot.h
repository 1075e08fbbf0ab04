/* demo_bot.h - a bot player: walks between random points of the arena,
 * jumps, crouches, switches weapons and shoots at players where it draws them. */
#ifndef DEMO_BOT_H
#define DEMO_BOT_H

#include "fps.h"
#include "zl_client.h"

typedef struct demo_bot {
    uint64_t rng;
    zl_vec3 goal;          /* where it walks */
    uint32_t frame;
    uint32_t goal_until;   /* frame at which it picks a new goal anyway */
    uint32_t weapon_until; /* frame of the next weapon choice */
    uint32_t crouch_until;
    uint32_t aim_until;    /* frame of the next aim error */
    int32_t aim_error;     /* binary angle units added to the yaw */
    uint8_t weapon;        /* FPS_WEAPON_* it wants */
    uint8_t pulled;        /* attack was down last frame (semi-automatics) */
} demo_bot;

/* Starts a bot; the seed makes each one behave differently. */
void demo_bot_init(demo_bot *b, uint64_t seed);

/* The nearest other live player c draws with a clear line from me's eye
 * to its chest, or -1. */
int demo_bot_nearest(const zl_client *c, int self, const fps_player *me);

/* The command for one frame of msec milliseconds. The bot reads its own
 * predicted state and the others as c draws them (call zl_client_frame
 * first); it shoots only when may_fire is non-zero. */
void demo_bot_think(demo_bot *b, const zl_client *c, int self, uint16_t msec, int may_fire,
                    zl_usercmd *out);

#endif
