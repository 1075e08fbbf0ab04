/* zl_game.h - the interface through which the core drives a game's rules
 * (movement, weapons, server entities), plus the event sink they report to. */
#ifndef ZL_GAME_H
#define ZL_GAME_H

#include "zl_ray.h"
#include "zl_usercmd.h"

ZL_BEGIN_DECLS

/* Something that happened, for sounds, effects and server-side rules: a
 * footstep, a shot, a hit. Meaning of every field but `source` is the
 * game's (see its header, e.g. examples/fps/fps.h). */
typedef struct zl_event {
    uint16_t type;   /* game-defined event code */
    uint16_t param;  /* game-defined detail: weapon, damage... */
    int32_t source;  /* entity whose code emitted it: stamped by the sink */
    int32_t target;  /* entity it concerns, or -1 */
    zl_vec3 origin;  /* where, in world units */
    zl_vec3 dir;     /* a unit direction, or zero */
    uint32_t tick;   /* server tick it happened on: stamped by the sink (the
                        server's stamps its tick; a client's prediction 0) */
} zl_event;

/* A fixed-capacity sink over caller-owned storage. Events beyond capacity
 * are dropped and counted in `dropped`, never lost silently: size it for
 * the most one call can emit (the game documents that number). */
typedef struct zl_events {
    zl_event *items;   /* capacity slots, owned by the caller */
    uint32_t capacity;
    uint32_t count;    /* events held */
    uint32_t dropped;  /* events refused since the last clear */
    int32_t source;    /* stamped into each pushed event: set it to the
                          entity whose code is about to run */
    uint32_t tick;     /* stamped into each pushed event */
} zl_events;

static inline void zl_events_init(zl_events *e, zl_event *storage, uint32_t capacity)
{
    ZL_ASSERT(e && (storage || capacity == 0));
    e->items = storage;
    e->capacity = capacity;
    e->count = 0;
    e->dropped = 0;
    e->source = -1;
    e->tick = 0;
}

/* Empties the sink and resets the dropped counter; keeps `source` and `tick`. */
static inline void zl_events_clear(zl_events *e)
{
    e->count = 0;
    e->dropped = 0;
}

/* Appends a copy of *ev with source = e->source and tick = e->tick. ZL_OK, or ZL_ERR_FULL
 * (counted in dropped). A NULL sink takes nothing and returns ZL_OK: the
 * caller asked for no events. */
static inline int zl_events_push(zl_events *e, const zl_event *ev)
{
    if (!e)
        return ZL_OK;
    if (e->count >= e->capacity) {
        e->dropped++;
        return ZL_ERR_FULL;
    }
    e->items[e->count] = *ev;
    e->items[e->count].source = e->source;
    e->items[e->count].tick = e->tick;
    e->count++;
    return ZL_OK;
}

/* One box a shot can hit, tagged with its owner. */
typedef struct zl_hitbox {
    zl_box box;
    int32_t entity; /* owner: player slot or entity number */
    int32_t part;   /* game-defined body part (the FPS: 0 body, 1 head) */
} zl_hitbox;

/* Result of a trace: the nearest thing hit. */
#define ZL_TRACE_WORLD (-1)
typedef struct zl_trace {
    zl_hit hit;
    int32_t entity; /* hitbox owner, or ZL_TRACE_WORLD */
    int32_t part;   /* hitbox part; -1 for the world */
} zl_trace;

/* The shared half of a game's trace: the segment start -> end against
 * `boxes` (count may be 0). With found 0, *out gets the nearest box met;
 * with found 1 (out->hit holds a hit already, the world's), a box replaces
 * it only when strictly nearer, so a tie keeps the earlier hit. A box hit
 * sets out->hit, entity and part. Returns 1 when *out holds a hit, else 0
 * (out untouched), or ZL_ERR_INVALID when the segment or a box leaves the
 * range zl_ray_box supports. */
static inline int zl_trace_boxes(const zl_vec3 *start, const zl_vec3 *end, const zl_hitbox *boxes,
                                 int count, int found, zl_trace *out)
{
    int i;
    for (i = 0; i < count; i++) {
        zl_hit h;
        int rc = zl_ray_box(start, end, &boxes[i].box, &h);
        if (rc < 0)
            return rc;
        if (rc == 1 && (!found || zl_hit_nearer(&h, &out->hit))) {
            out->hit = h;
            out->entity = boxes[i].entity;
            out->part = boxes[i].part;
            found = 1;
        }
    }
    return found;
}

/* What a shot hits, as the core decides it for the game. */
typedef struct zl_shot_tracer {
    void *ctx;
    /* The nearest hit of the segment start -> end against the world and
     * every player's hitboxes except the shooter's (a player slot, or -1),
     * as the shooter saw the players. Same results and return values as
     * zl_game.trace; out->entity is a player slot or ZL_TRACE_WORLD. */
    int (*trace)(void *ctx, const zl_vec3 *start, const zl_vec3 *end, int32_t shooter,
                 zl_trace *out);
} zl_shot_tracer;

/* A game, as the core sees it. Player and entity states are plain structs
 * described by the two schemas; arrays of players are `count` states of
 * player_schema->size bytes, indexed by player slot. Every function must
 * be deterministic, integer-only and free of hidden mutable state except
 * what ctx documents, so server and clients compute bit-identical results.
 * All callbacks are required, except relevance and share_event, and
 * entity_state in a game without entities. Every state a callback leaves
 * (players after commands, events, joins and ticks; entity_state's out)
 * is quantised (zl_schema_quantize): the server's snapshot history stores
 * them without quantising them again.
 *
 * Games of other shapes. The core needs only a few facts about space:
 * where a thing is (the origin fields below, to smooth corrections, spot
 * teleports and bound rewound players) and what a shot meets (hitboxes and
 * trace). A 2D game names an origin of two fields (origin_axes 2) and
 * lives in the plane z = 0: its hitboxes span some z range around 0 and
 * its shots and traces keep z = 0. A game of players only (a duel, a
 * racer) sets entity_schema to NULL and max_entities to 0. */
typedef struct zl_game {
    void *ctx; /* the game's own state (static world, server entities) */
    const zl_schema *player_schema;
    /* Server entities' layout (projectiles, pickups), or NULL when the game
     * has players only: then max_entities must be 0, entity_state may be
     * NULL and the entity_* field indices are not read. */
    const zl_schema *entity_schema;

    /* Runs one user command: to = f(from, cmd), a pure function, so it can
     * be replayed any number of times (client prediction). from and to may
     * be the same state. The result must be quantised
     * (zl_schema_quantize) so a state received from the server predicts
     * exactly as the server ran it. Events (footsteps, shots) are pushed
     * only when first_prediction is non-zero, so each is emitted once;
     * events may be NULL. A cmd failing zl_usercmd_validate is the
     * caller's error. */
    void (*run_command)(void *ctx, const void *from, const zl_usercmd *cmd, void *to,
                        int first_prediction, zl_events *events);

    /* Server only: carries out the server side of one event pushed by
     * run_command (a shot's trace and damage, spawning a projectile).
     * players are the live states (damage lands there). Hitscan shots ask
     * tracer what they hit (lag compensation supplies one that sees the
     * players as the shooter drew them); NULL traces against the live
     * players. Projectiles are never rewound. Results (hits, deaths) go to
     * events. Events it does not handle are ignored. */
    void (*resolve_event)(void *ctx, const zl_event *ev, void *players, int count,
                          const zl_shot_tracer *tracer, zl_events *events);

    /* Server only: advances the server entities (projectiles) and the
     * server's own rules (respawn) by msec milliseconds (1..250). May
     * change players (damage, respawn). */
    void (*tick_entities)(void *ctx, void *players, int count, uint32_t msec, zl_events *events);

    /* Writes the hitboxes of one player state (owner `entity`) into out,
     * at most max of them; returns how many (0 for a dead player). */
    int (*hitboxes)(void *ctx, const void *player, int32_t entity, zl_hitbox *out, int max);

    /* Traces the segment start -> end against the static world and the
     * given hitboxes (count may be 0); fills *out with the nearest hit.
     * Returns 1 (hit), 0 (nothing in the way), or ZL_ERR_INVALID when the
     * segment leaves the supported range (see ZL_RAY_LIMIT). */
    int (*trace)(void *ctx, const zl_vec3 *start, const zl_vec3 *end, const zl_hitbox *boxes,
                 int count, zl_trace *out);

    /* Server only: a client took player slot `slot`; write its first state
     * into player (zeroed before the call). */
    void (*player_join)(void *ctx, void *player, int slot);

    /* Server only: the client in slot `slot` left (quit, timed out, was
     * kicked). From now until the next player_join of that slot the
     * state in player belongs to nobody: the game keeps it out of its own
     * rules (no damage, no respawn, no hitboxes in its traces). The
     * server never reads it again; lag compensation has already forgotten
     * the slot. */
    void (*player_leave)(void *ctx, void *player, int slot);

    /* Server only: the server entities (projectiles), numbered 0 ..
     * max_entities - 1; snapshots carry entity i as number
     * ZL_MAX_CLIENTS + i. Copies entity i's state into out and returns 1,
     * or returns 0 when that number is free. Never called when
     * max_entities is 0. */
    int (*entity_state)(void *ctx, int index, void *out);
    int max_entities;

    /* The origin: origin_axes (2 or 3) consecutive FX fields of a schema,
     * x, y and for 3 z; a 2D game's z is taken as 0. Players and entities
     * share the count. The fields below are indices in player_schema and
     * entity_schema of the origin's x (-1: the state has no origin) and of
     * a counter the game bumps when it moves the thing instantly (respawn;
     * -1: none). Smoothing, interpolation and rewind snap on them instead
     * of sliding; without an origin there is no smoothing or teleport
     * test, and rewind poses every player for every shot. An origin field
     * that does not name origin_axes FX fields is API misuse (ZL_ASSERT at
     * zl_server_init, zl_client_init). */
    int origin_axes;
    int player_origin_field, player_teleport_field;
    int entity_origin_field, entity_teleport_field;

    /* Optional, server only: interest management (Source's PVS, Quake 3's
     * areas). NULL: every client receives every entity. Otherwise called
     * once per snapshot for client `slot` at server tick `tick`: writes
     * into ids the entity numbers it should receive (player slots, and
     * ZL_MAX_CLIENTS + i for server entity i), ascending or not, no
     * duplicates, at most max (ZL_MAX_ENTITIES), and into priority a
     * weight for each (larger: sent sooner when the snapshot is short of
     * room; 0 counts as 1); returns how many. players are the live states
     * of count slots, present[k] non-zero where a player is in the game.
     * An entity left out is removed from that client as if it had left the
     * world, and sent whole when it comes back; the client's own player is
     * always sent. Lag compensation does not depend on it. It may keep
     * per-tick work in ctx (a grid built on the first call of a tick). */
    int (*relevance)(void *ctx, uint32_t tick, const void *players, const uint8_t *present,
                     int count, int slot, uint16_t *ids, uint32_t *priority, int max);

    /* Optional: events in snapshots (zl_eventlog.h). event_schema describes
     * zl_event as the game codes it on the wire (type, param, target,
     * origin, dir with the ranges and precision it needs; leave source and
     * tick out: the core carries them); NULL: clients receive no events.
     * Server only, optional: share_event says whether clients should see
     * an event of the server's sink (NULL: every one). */
    const zl_schema *event_schema;
    int (*share_event)(void *ctx, const zl_event *ev);
    /* Optional, with event_schema: the bases an event is coded against
     * besides the zero event, built from its source's state as the
     * snapshot carrying it holds it (zl_eventlog.h): event_base fills
     * *base (zeroed before the call) with base `which` (1 ..
     * event_bases, at most 15) of a source `source` (an entity number)
     * whose state is `source_state` (the layout's schema for that number,
     * only its shared fields at shared precision set, the rest zero), e.g.
     * its origin where its footsteps sound, its eye and aim where it
     * shoots. Called on server and client alike: a pure function of its
     * arguments. event_bases 0 (or event_base NULL): every event is coded
     * against the zero event. */
    void (*event_base)(const void *source_state, int32_t source, uint32_t which, zl_event *base);
    uint8_t event_bases;
} zl_game;

/* 1 when `first` (an index in schema's field table) starts an origin of
 * `axes` fields as zl_game describes it, or is -1 (no origin); else 0. */
static inline int zl_origin_ok(const zl_schema *schema, int first, int axes)
{
    int i;
    if (first < 0)
        return first == -1;
    if ((axes != 2 && axes != 3) || first > (int)schema->count - axes)
        return 0;
    for (i = first; i < first + axes; i++)
        if (schema->fields[i].kind != ZL_FIELD_KIND_FX || schema->fields[i].size != sizeof(zl_fx))
            return 0;
    return 1;
}

ZL_END_DECLS

#endif
