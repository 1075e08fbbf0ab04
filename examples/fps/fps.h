/* fps.h - the reference FPS rules on zerolag: player and projectile states,
 * the arena, movement, weapons and the server's rules, all integer-only. */
#ifndef FPS_H
#define FPS_H

#include "zl_game.h"

ZL_BEGIN_DECLS

/* Units are Half-Life's inch-like game units; speeds are units per second.
 * Supported world: positions within +/-4096 units (the range player and
 * projectile origins are sent in); the arena (fps_world.c) spans +/-1056
 * horizontally and -64..544 vertically. Every product in movement then
 * stays far inside int32/int64, and every shot inside ZL_RAY_LIMIT. */

/* One player per server slot. */
#define FPS_MAX_PLAYERS ZL_MAX_CLIENTS
/* Rocket slots; a configuration may lower it (examples/footprint). */
#ifndef FPS_MAX_ENTITIES
#define FPS_MAX_ENTITIES 32
#endif
/* The most events one run_command pushes (footstep, jump, a clamped view,
 * and a weapon action with its follow-up: empty click + reload). */
#define FPS_MAX_EVENTS_PER_COMMAND 5

/* zl_usercmd.buttons */
#define FPS_BUTTON_ATTACK 0x01
#define FPS_BUTTON_JUMP 0x02
#define FPS_BUTTON_DUCK 0x04
#define FPS_BUTTON_RELOAD 0x08

/* Weapons; zl_usercmd.weapon = FPS_WEAPON_x + 1 selects one (0: keep). */
enum { FPS_WEAPON_RIFLE, FPS_WEAPON_PISTOL, FPS_WEAPON_LAUNCHER, FPS_WEAPON_COUNT };

/* fps_player.flags */
#define FPS_PF_ON_GROUND 0x01
#define FPS_PF_CROUCHED 0x02
#define FPS_PF_DEAD 0x04
#define FPS_PF_RELOADING 0x08
#define FPS_PF_ATTACK_HELD 0x10 /* attack was down last command (semi-auto) */
#define FPS_PF_JUMP_HELD 0x20   /* jump was down last command (no bunny hop) */

/* Event types (zl_event.type). The first group comes from run_command
 * (source = the player); the second from the server's rules. */
enum {
    FPS_EV_FOOTSTEP = 1, /* origin: feet */
    FPS_EV_JUMP,         /* origin: feet */
    FPS_EV_FIRE,         /* hitscan shot: origin eye, dir aim, param weapon */
    FPS_EV_LAUNCH,       /* projectile shot: origin eye, dir aim, param weapon */
    FPS_EV_RELOAD,       /* param weapon */
    FPS_EV_EMPTY,        /* dry fire click, param weapon */
    FPS_EV_SWITCH,       /* param the new weapon */
    FPS_EV_HIT,          /* a shot landed: origin point, target player or -1
                            for the world, param damage (0 for the world) */
    FPS_EV_EXPLODE,      /* origin: where a projectile burst */
    FPS_EV_KILL,         /* source killer, target victim */
    FPS_EV_RESPAWN,      /* target the player, origin the spawn point */
    /* From run_command again: input the rules would not carry out as
     * asked, param FPS_REFUSED_*. Only on a change (a fresh press, a view
     * newly pushed past the limit), at most one of each per command, so a
     * hostile client cannot make more of them than it sends commands. */
    FPS_EV_REFUSED
};

/* FPS_EV_REFUSED.param. (Attack with an empty magazine is FPS_EV_EMPTY.) */
enum {
    FPS_REFUSED_EARLY, /* attack pressed before the weapon was ready: the
                          fire interval, a reload or a switch still ran */
    FPS_REFUSED_PITCH  /* a pitch past the limit (89 degrees): clamped */
};

/* Hitbox parts (zl_hitbox.part). A head hit does FPS_HEAD_MULTIPLIER
 * times the weapon's damage. */
enum { FPS_PART_BODY, FPS_PART_HEAD };
#define FPS_HEAD_MULTIPLIER 3

/* The player hull: 32 x 32 x 72 standing, 36 tall crouched, origin at the
 * centre of its bottom face (the feet). The eye is this far above it. */
#define FPS_HALF_WIDTH 16
#define FPS_STAND_HEIGHT 72
#define FPS_CROUCH_HEIGHT 36
#define FPS_STAND_EYE 64
#define FPS_CROUCH_EYE 28

#define FPS_HEALTH_MAX 100
#define FPS_RESPAWN_MS 2000

/* A player's predicted state: everything run_command reads and writes.
 * Timers are integer milliseconds so they are predicted exactly. */
typedef struct fps_player {
    zl_vec3 origin;        /* feet, units */
    zl_vec3 velocity;      /* units per second */
    zl_angle yaw, pitch;   /* view; yaw 0 looks along +x, +pitch looks up */
    uint16_t weapon_time;  /* ms until the weapon may act again */
    uint16_t respawn_time; /* ms left before a dead player respawns */
    uint16_t step_time;    /* ms to the next footstep (client-only) */
    uint8_t flags;         /* FPS_PF_* */
    uint8_t health;        /* 0..FPS_HEALTH_MAX */
    uint8_t weapon;        /* FPS_WEAPON_* in hand */
    uint8_t clip[FPS_WEAPON_COUNT]; /* rounds loaded per weapon */
    uint8_t teleport;      /* +1 (wrapping) at every respawn: smoothing and
                              interpolation snap instead of sliding */
} fps_player;

/* A server entity: a rocket in flight (not lag-compensated, as in
 * Half-Life: it simply flies in the server's present). */
enum { FPS_ENTITY_NONE, FPS_ENTITY_ROCKET };
typedef struct fps_entity {
    zl_vec3 origin;   /* units */
    zl_vec3 velocity; /* units per second */
    uint16_t age;     /* ms since launch */
    uint8_t type;     /* FPS_ENTITY_* */
    uint8_t owner;    /* player slot that fired it */
} fps_entity;

extern const zl_schema fps_player_schema;
extern const zl_schema fps_entity_schema;
/* zl_event as clients receive it in snapshots (zl_game.event_schema). */
extern const zl_schema fps_event_schema;

/* What the server refused or clamped of one player's input, counted from
 * the events of the commands it ran (fps_resolve_event). An honest client
 * that predicts its weapon and keeps its view in range causes none. */
typedef struct fps_refusals {
    uint32_t early_shots;  /* FPS_REFUSED_EARLY */
    uint32_t dry_fires;    /* FPS_EV_EMPTY: attack with nothing loaded */
    uint32_t pitch_clamps; /* FPS_REFUSED_PITCH */
} fps_refusals;

/* Relevance: the arena's floor cut into FPS_GRID x FPS_GRID square cells.
 * A client receives the players of its own cell and of rings of cells
 * around it, ring after ring, until FPS_RELEVANT_PLAYERS are in (nearest
 * first in priority), and every rocket. */
#define FPS_ARENA_HALF 1056
#define FPS_GRID 8
#define FPS_RELEVANT_PLAYERS 24

/* The server's game state: the zl_game ctx. Clients need none of it to
 * predict (run_command reads only the static world). */
typedef struct fps_game {
    /* The grid of the tick grid_tick (grid_valid): per cell the first
     * player slot + 1 in it (0: none), per slot the next + 1 and its cell. */
    uint8_t grid_valid;
    uint32_t grid_tick;
    uint16_t cell_head[FPS_GRID * FPS_GRID];
    uint16_t cell_next[FPS_MAX_PLAYERS];
    uint8_t cell_of[FPS_MAX_PLAYERS];
    fps_entity entities[FPS_MAX_ENTITIES];
    uint32_t spawn_next;        /* spawn point rotation */
    uint32_t entities_refused;  /* launches that found no free slot */
    fps_refusals refusals[FPS_MAX_PLAYERS]; /* per slot, since it was taken */
    uint8_t left[FPS_MAX_PLAYERS]; /* per slot: 1 after its client left, until
                                      the next join (0 from init: a game run
                                      without a server has every slot) */
} fps_game;

/* ---- fps_game.c: the zl_game implementation ---- */

/* Empties the server state. */
void fps_game_init(fps_game *g);
/* The zl_game for g (g is the ctx; it must outlive the result). */
zl_game fps_game_interface(fps_game *g);

/* One user command on a player: to = f(from, cmd). See zl_game.run_command;
 * from and to may alias. */
void fps_run_command(const fps_player *from, const zl_usercmd *cmd, fps_player *to,
                     int first_prediction, zl_events *events);

/* Pushes one event (source stamped by the sink; a NULL sink takes none). */
void fps_emit(zl_events *events, uint16_t type, uint16_t param, int32_t target, zl_vec3 origin,
              zl_vec3 dir);

/* Body then head box of a live player (max >= 2 gets both); 0 when dead. */
int fps_player_hitboxes(const fps_player *p, int32_t entity, zl_hitbox *out, int max);

/* Nearest hit along start -> end among the world and the given hitboxes
 * (see zl_game.trace). World boxes the start is inside are ignored;
 * a hitbox the start is inside is hit at distance 0 (point blank). */
int fps_trace(const zl_vec3 *start, const zl_vec3 *end, const zl_hitbox *boxes, int count,
              zl_trace *out);

/* ---- fps_world.c: the static arena ---- */

/* Sweeps a box spanning `hull` (relative to the origin, within +/-1024
 * units) from start to end through the world. Returns 1 with the first contact in *hit (hit->point
 * is the origin there, touching but never inside a wall), 0 when the way
 * is clear, ZL_ERR_INVALID out of range. Walls the hull already overlaps
 * at start are ignored, so a mover is never trapped. */
int fps_world_sweep(const zl_vec3 *start, const zl_vec3 *end, const zl_box *hull, zl_hit *hit);
/* 1 when the hull at origin overlaps a wall (touching does not count). */
int fps_world_blocked(const zl_vec3 *origin, const zl_box *hull);
/* Spawn point `index` (any value: they rotate): feet origin and yaw. */
void fps_world_spawn_point(uint32_t index, zl_vec3 *origin, zl_angle *yaw);
/* The arena's walls (static storage) and their count; the number of
 * spawn points (fps_gamestate sends both). */
int fps_world_walls(const zl_box **walls);
uint32_t fps_world_spawn_count(void);

/* ---- fps_move.c: movement ---- */

/* The hull of a standing (crouched 0) or crouching (1) player, relative
 * to its origin, and the hull of a player in its current stance. */
zl_box fps_hull(int crouched);
zl_box fps_player_hull(const fps_player *p);
/* A command's duration in Q16.16 seconds: msec * 65536 / 1000 rounded to
 * nearest, halves up (16 ms -> 1049 raw, 0.0160065 s). */
zl_fx fps_msec_to_seconds(uint32_t msec);
/* Moves p through one command: view angles, stance, gravity, jump,
 * friction, acceleration, collide-and-slide with stepping, footsteps.
 * A dead player's input is ignored: it only falls. Events when emit. */
void fps_move(fps_player *p, const zl_usercmd *cmd, int emit, zl_events *events);

/* ---- fps_weapons.c: predicted weapon logic ---- */

/* Timers, reload, switching and firing for one command (nothing for the
 * dead), run after the move: shots leave from where the player ended up.
 * A shot becomes an FPS_EV_FIRE or FPS_EV_LAUNCH event (direction with the
 * cmd's seeded spread); its effects are the server's (fps_resolve_event).
 * Events are pushed only when emit. */
void fps_weapons(fps_player *p, const zl_usercmd *cmd, int emit, zl_events *events);
/* Magazine size of a weapon. */
int fps_weapon_clip_size(int weapon);
/* Damage of one hit on the body; a rocket's at the centre of its blast. */
int fps_weapon_damage(int weapon);
/* The eye position of a player. */
zl_vec3 fps_player_eye(const fps_player *p);
/* Unit vector of a view: yaw 0 along +x, positive pitch up. */
zl_vec3 fps_aim(zl_angle yaw, zl_angle pitch);

/* ---- fps_server.c: server-side rules ---- */

/* Places p at the next spawn point with full health and ammo and bumps its
 * teleport counter. */
void fps_player_spawn(fps_game *g, fps_player *p);
/* A client took slot `slot`: its refusal counters start over, p spawns. */
void fps_player_join(fps_game *g, fps_player *p, int slot);
/* Slot `slot`'s client left: until it is joined again, its player takes no
 * damage, blocks no shot or rocket, fires nothing and never respawns. */
void fps_player_leave(fps_game *g, int slot);
/* How far a hitscan shot reaches: it is traced from the eye to eye +
 * dir * FPS_HITSCAN_RANGE. */
#define FPS_HITSCAN_RANGE ZL_FX_INT(4096)

/* The server side of a FIRE (trace, damage) or LAUNCH (spawn a rocket)
 * event; see zl_game.resolve_event. FIRE asks tracer what the shot hits
 * (NULL: the live players); a hit on a slot outside players is dropped.
 * REFUSED and EMPTY events are counted in g->refusals. */
void fps_resolve_event(fps_game *g, const zl_event *ev, fps_player *players, int count,
                       const zl_shot_tracer *tracer, zl_events *events);
/* Flies rockets (hit, burst, splash damage) and respawns the dead. */
void fps_tick_entities(fps_game *g, fps_player *players, int count, uint32_t msec,
                       zl_events *events);
/* The entities client `slot` receives at `tick` (zl_game.relevance, which
 * fps_game_interface leaves NULL: a server opts in by setting it to
 * fps_relevance_cb): the grid rule above. Players of the same cell weigh
 * 8, of the next ring 4, farther ones 1; rockets 4. */
int fps_relevance(fps_game *g, uint32_t tick, const fps_player *players, const uint8_t *present,
                  int count, int slot, uint16_t *ids, uint32_t *priority, int max);
int fps_relevance_cb(void *ctx, uint32_t tick, const void *players, const uint8_t *present,
                     int count, int slot, uint16_t *ids, uint32_t *priority, int max);

/* ---- fps_gamestate.c: what a joining client is given (a zl block) ---- */

/* The gamestate the server gives each joining client (zl_server_block_send
 * on its ZL_NOTICE_JOIN), as Quake 3 sends configstrings: what the rules
 * compiled into the client cannot know (who plays, the server's message of
 * the day, its tick rate) and what the client checks its own against (the
 * arena and the rules: prediction is only right when both sides run the
 * same). Bytes, little-endian:
 *   4  "FPSG"            1  version (1)          2  tick rate (Hz)
 *   1  health max        2  respawn (ms)
 *   1  weapons W, then W x (1 magazine, 1 damage)
 *   1  walls N, then N x 6 x int16 (min x, y, z, max x, y, z; whole units)
 *   1  spawn points S, then S x (int16 x, int16 y, uint16 yaw, 65536 a turn)
 *   1  players P, then P x (1 slot, 1 name length L <= FPS_NAME_MAX, L bytes)
 *   2  message length M, then M bytes
 * and nothing after. */
#define FPS_GAMESTATE_VERSION 1
#define FPS_NAME_MAX 31

/* A gamestate as read: names and message point into the block read. */
typedef struct fps_gamestate {
    uint16_t tick_rate;
    uint8_t arena_ok;   /* its walls and spawn points are this build's */
    uint8_t rules_ok;   /* its health, respawn and weapons are this build's */
    uint8_t players;
    uint8_t slot[FPS_MAX_PLAYERS];
    uint8_t name_len[FPS_MAX_PLAYERS];
    const char *name[FPS_MAX_PLAYERS]; /* not terminated: name_len bytes */
    const char *motd;                  /* not terminated: motd_len bytes */
    uint16_t motd_len;
} fps_gamestate;

/* Writes the gamestate of this build's arena and rules into out (cap
 * bytes): names[i] is slot i's player name (NULL: nobody) for i below
 * slots, longer names cut to FPS_NAME_MAX bytes; motd a terminated string
 * (NULL: none; at most 65535 bytes are sent). Returns its length, or
 * ZL_ERR_OVERFLOW when it does not fit. */
int fps_gamestate_write(uint8_t *out, size_t cap, uint16_t tick_rate, const char *const *names,
                        int slots, const char *motd);

/* Reads a gamestate (hostile bytes fine) into *gs, whose pointers then
 * point into data: ZL_OK, or ZL_ERR_MALFORMED (a wrong magic or version,
 * a count or length past the end, a slot out of range, bytes left over). */
int fps_gamestate_read(const uint8_t *data, size_t len, fps_gamestate *gs);

ZL_END_DECLS

#endif
