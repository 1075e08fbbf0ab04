/* demo_welcome.h - the demo server's welcome: each joining client gets the
 * reference FPS's gamestate as a block (fps_gamestate: arena, rules, names, message). */
#ifndef DEMO_WELCOME_H
#define DEMO_WELCOME_H

#include "demo_game.h"

/* One gamestate per slot: a block's bytes stay the sender's until the
 * client has acknowledged them all, and the names change as players come. */
typedef struct demo_welcome {
    uint8_t bytes[ZL_MAX_CLIENTS][DEMO_GAMESTATE_MAX];
} demo_welcome;

/* Server: gives slot's client the gamestate, as it reads the client's
 * ZL_NOTICE_JOIN: the arena and rules, the players in now (the name= its
 * token's user data carries, else "player N") and motd. Returns the
 * block's length, or a negative ZL_ERR_* (a full slot, or a gamestate
 * still under way to that slot). */
int demo_welcome_send(demo_welcome *w, zl_server *s, int slot, const char *motd);

#endif
