/* demo_game.h - the FPS rules as the demo runs them: the same game, with a
 * witness of every shot, on the client (what it saw) and the server (verdict). */
#ifndef DEMO_GAME_H
#define DEMO_GAME_H

#include "demo_record.h"
#include "fps.h"
#include "zl_client.h"
#include "zl_server.h"

/* Verdicts one server update may hold before they are read; more are
 * counted in verdicts_lost. */
#define DEMO_VERDICTS 256

/* The rules and the witness's notes. Large with the server's verdicts:
 * keep it static. */
typedef struct demo_game {
    /* First member: the FPS callbacks cast their ctx to fps_game, and the
     * ctx handed to the endpoint is this struct, so both views agree. */
    fps_game fps;
    zl_game rules;            /* give this to zl_server_init / zl_client_init */
    zl_game inner;            /* the plain FPS interface */
    const zl_server *server;  /* server only, for the rewind (demo_game_watch) */
    zl_usercmd cmd;           /* the last command run for the first time */
    int32_t runner;           /* the slot running cmd (server), or -1 */
    const zl_shot_tracer *tracer; /* the server's, while a shot resolves */
    demo_rec_verdict *verdict;    /* the shot resolving */
    uint32_t verdict_count, verdicts_lost;
    demo_rec_verdict verdicts[DEMO_VERDICTS];
    uint32_t deadfire_count;
    demo_rec_deadfire deadfire[DEMO_VERDICTS];
    /* Kills the server's rules reported since the last kill feed, and
     * every slot's kills so far (server only). */
    uint32_t kill_count, kills_lost;
    int32_t kill[DEMO_VERDICTS][2]; /* killer, victim */
    uint16_t frags[ZL_MAX_CLIENTS];
} demo_game;

/* The gamestate a demo server gives each joining client (demo_welcome.h,
 * examples/fps: fps_gamestate), at most this many bytes, and the part of
 * its message of the day a client keeps. */
#define DEMO_GAMESTATE_MAX 2048
#define DEMO_MOTD_MAX 160

/* A kill feed message (reliable, server to every client): its kind byte,
 * the killer's and the victim's slots, the killer's kills so far. */
#define DEMO_MSG_KILL 'K'
#define DEMO_MSG_KILL_BYTES 4

/* Prepares the rules: g->rules is the FPS interface with run_command and
 * resolve_event watched. */
void demo_game_init(demo_game *g);

/* Server: lets the witness read the server's rewind history (to draw the
 * box the shooter's command claims it drew). */
void demo_game_watch(demo_game *g, const zl_server *s);

/* Server: sends each hit of the ticks just run to its shooter as an
 * impact message. Call before demo_game_flush, which forgets them. */
void demo_game_impacts(const demo_game *g, zl_server *s);

/* Server: hands the verdicts and dead fires of the ticks just run to sink
 * (stamped time_ms) and forgets them. Call after each update, outside
 * any timed part. */
void demo_game_flush(demo_game *g, uint32_t time_ms, const demo_sink *sink);

/* Server: sends every kill since the last call to every client as a kill
 * feed message (zl_server_broadcast_message) and forgets them. */
void demo_game_kill_feed(demo_game *g, zl_server *s);

/* The union of a live player's hitboxes; 0 (and *out zeroed) when dead. */
int demo_player_box(const fps_player *p, zl_box *out);

/* Client: traces a FIRE event the client predicted against the other
 * players as client c draws them this frame (self: its own slot). Returns
 * the slot the ray met first (walls block it) and its drawn box in *drawn,
 * or -1 (a miss; *drawn zeroed). */
int demo_sight(const zl_client *c, int self, const zl_event *fire, zl_box *drawn);

#endif
