/* fps_game.c - the FPS as a zl_game: its state schemas, the shared command
 * runner (server and predicting client alike), hitboxes and traces. */
#include "fps.h"

#include <string.h>

/* Origins on a 1/32-unit grid within the supported +/-4096 units, speeds
 * on a 1/16 grid (the clamp is 2000): 18 and 16 bits. Every other client
 * draws (and lag compensation rewinds) origins on a 1/8 grid and the view
 * in 12 bits (0.09 degrees): finer than any screen shows, 2 and 4 bits
 * less per changed field; the owner predicts on the fine grid. Timers and
 * counters are exact. Fields that change every tick come first. Velocity, the
 * weapon timer and clips go to the player's own client only (ZL_OWNER):
 * prediction needs them, drawing other players does not. The respawn
 * timer runs in the server's tick, which no client predicts: it is not
 * sent at all (ZL_LOCAL), or every reconciliation of a dead player would
 * count a misprediction. */
static const zl_field player_fields[] = {
    ZL_FIELD_FX_SHARED(fps_player, origin.x, -4096, 4095, 5, 3, ZL_INTERP_LINEAR | ZL_EXTRAPOLATE),
    ZL_FIELD_FX_SHARED(fps_player, origin.y, -4096, 4095, 5, 3, ZL_INTERP_LINEAR | ZL_EXTRAPOLATE),
    ZL_FIELD_FX_SHARED(fps_player, origin.z, -4096, 4095, 5, 3, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(fps_player, velocity.x, -2048, 2047, 4, ZL_INTERP_LINEAR | ZL_OWNER),
    ZL_FIELD_FX(fps_player, velocity.y, -2048, 2047, 4, ZL_INTERP_LINEAR | ZL_OWNER),
    ZL_FIELD_FX(fps_player, velocity.z, -2048, 2047, 4, ZL_INTERP_LINEAR | ZL_OWNER),
    ZL_FIELD_ANGLE_SHARED(fps_player, yaw, 16, 12, ZL_INTERP_ARC | ZL_EXTRAPOLATE),
    ZL_FIELD_ANGLE_SHARED(fps_player, pitch, 16, 12, ZL_INTERP_ARC),
    ZL_FIELD_INT(fps_player, weapon_time, 0, 4000, ZL_INTERP_STEP | ZL_OWNER),
    ZL_FIELD_FLAGS(fps_player, flags, 6, ZL_INTERP_STEP),
    ZL_FIELD_INT(fps_player, health, 0, FPS_HEALTH_MAX, ZL_INTERP_STEP),
    ZL_FIELD_INT(fps_player, weapon, 0, FPS_WEAPON_COUNT - 1, ZL_INTERP_STEP),
    ZL_FIELD_INT(fps_player, clip[0], 0, 30, ZL_INTERP_STEP | ZL_OWNER),
    ZL_FIELD_INT(fps_player, clip[1], 0, 12, ZL_INTERP_STEP | ZL_OWNER),
    ZL_FIELD_INT(fps_player, clip[2], 0, 4, ZL_INTERP_STEP | ZL_OWNER),
    ZL_FIELD_INT(fps_player, respawn_time, 0, FPS_RESPAWN_MS, ZL_INTERP_STEP | ZL_LOCAL),
    ZL_FIELD_INT(fps_player, teleport, 0, 255, ZL_INTERP_STEP | ZL_TELEPORT),
    /* Only for footstep timing: the client keeps its own. */
    ZL_FIELD_INT(fps_player, step_time, 0, 1000, ZL_INTERP_STEP | ZL_LOCAL),
};
const zl_schema fps_player_schema = ZL_SCHEMA(fps_player, player_fields);

static const zl_field entity_fields[] = {
    ZL_FIELD_FX(fps_entity, origin.x, -4096, 4095, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(fps_entity, origin.y, -4096, 4095, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(fps_entity, origin.z, -4096, 4095, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(fps_entity, velocity.x, -2048, 2047, 4, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(fps_entity, velocity.y, -2048, 2047, 4, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(fps_entity, velocity.z, -2048, 2047, 4, ZL_INTERP_LINEAR),
    ZL_FIELD_INT(fps_entity, age, 0, 65535, ZL_INTERP_LINEAR),
    ZL_FIELD_INT(fps_entity, type, 0, FPS_ENTITY_ROCKET, ZL_INTERP_STEP),
    ZL_FIELD_INT(fps_entity, owner, 0, FPS_MAX_PLAYERS - 1, ZL_INTERP_STEP),
};
const zl_schema fps_entity_schema = ZL_SCHEMA(fps_entity, entity_fields);

/* Events as clients receive them: positions on a 1/8-unit grid (effects
 * and hit markers need no finer), directions to 1/1024, damage and weapon
 * in 10 bits. Fields an event leaves zero (a footstep has no direction)
 * cost one bit each. Source and tick are carried by the core. */
static const zl_field event_fields[] = {
    ZL_FIELD_INT(zl_event, type, 0, FPS_EV_REFUSED, ZL_INTERP_STEP),
    ZL_FIELD_FX(zl_event, origin.x, -4096, 4095, 3, ZL_INTERP_STEP),
    ZL_FIELD_FX(zl_event, origin.y, -4096, 4095, 3, ZL_INTERP_STEP),
    ZL_FIELD_FX(zl_event, origin.z, -4096, 4095, 3, ZL_INTERP_STEP),
    ZL_FIELD_INT(zl_event, param, 0, 1023, ZL_INTERP_STEP),
    ZL_FIELD_FX(zl_event, dir.x, -1, 1, 10, ZL_INTERP_STEP),
    ZL_FIELD_FX(zl_event, dir.y, -1, 1, 10, ZL_INTERP_STEP),
    ZL_FIELD_FX(zl_event, dir.z, -1, 1, 10, ZL_INTERP_STEP),
    ZL_FIELD_INT(zl_event, target, -1, FPS_MAX_PLAYERS - 1, ZL_INTERP_STEP),
};
const zl_schema fps_event_schema = ZL_SCHEMA(zl_event, event_fields);

void fps_run_command(const fps_player *from, const zl_usercmd *cmd, fps_player *to,
                     int first_prediction, zl_events *events)
{
    /* Work on a copy: from and to may be the same state. */
    fps_player p = *from;
    fps_move(&p, cmd, first_prediction, events);
    fps_weapons(&p, cmd, first_prediction, events);
    /* Snap to exactly what the wire carries, as Quake 3 snaps at the end of
     * pmove: a client predicting from a received state then computes what
     * the server computed, bit for bit. */
    zl_schema_quantize(&fps_player_schema, &p);
    *to = p;
}

void fps_emit(zl_events *events, uint16_t type, uint16_t param, int32_t target, zl_vec3 origin,
              zl_vec3 dir)
{
    zl_event ev;
    ev.type = type;
    ev.param = param;
    ev.source = -1;
    ev.target = target;
    ev.origin = origin;
    ev.dir = dir;
    zl_events_push(events, &ev);
}

/* The head sits on top of a body box that ends below it; both shrink with
 * the hull when crouching. */
#define HEAD_HALF_WIDTH 7
#define HEAD_HEIGHT 12

int fps_player_hitboxes(const fps_player *p, int32_t entity, zl_hitbox *out, int max)
{
    zl_box hull = fps_player_hull(p);
    zl_fx neck = hull.max.z - ZL_FX_INT(HEAD_HEIGHT);
    zl_vec3 head_min = zl_vec3_make(ZL_FX_INT(-HEAD_HALF_WIDTH), ZL_FX_INT(-HEAD_HALF_WIDTH), neck);
    zl_vec3 head_max = zl_vec3_make(ZL_FX_INT(HEAD_HALF_WIDTH), ZL_FX_INT(HEAD_HALF_WIDTH), hull.max.z);
    int n = 0;
    if (p->flags & FPS_PF_DEAD)
        return 0;
    if (n < max) {
        out[n].box.min = zl_vec3_add(p->origin, hull.min);
        out[n].box.max = zl_vec3_add(p->origin, zl_vec3_make(hull.max.x, hull.max.y, neck));
        out[n].entity = entity;
        out[n].part = FPS_PART_BODY;
        n++;
    }
    if (n < max) {
        out[n].box.min = zl_vec3_add(p->origin, head_min);
        out[n].box.max = zl_vec3_add(p->origin, head_max);
        out[n].entity = entity;
        out[n].part = FPS_PART_HEAD;
        n++;
    }
    return n;
}

int fps_trace(const zl_vec3 *start, const zl_vec3 *end, const zl_hitbox *boxes, int count,
              zl_trace *out)
{
    static const zl_box ray_hull = {{0, 0, 0}, {0, 0, 0}}; /* a point */
    int found = fps_world_sweep(start, end, &ray_hull, &out->hit);
    if (found < 0)
        return found;
    out->entity = ZL_TRACE_WORLD;
    out->part = -1;
    /* Strictly nearer wins, so a tie between a wall and a body (the shot
     * meets both at the same point) goes to the wall: cover protects. */
    return zl_trace_boxes(start, end, boxes, count, found, out);
}

void fps_game_init(fps_game *g)
{
    memset(g, 0, sizeof *g);
}

/* The zl_game callbacks: casts from the core's untyped states. */
static void run_command_cb(void *ctx, const void *from, const zl_usercmd *cmd, void *to,
                           int first_prediction, zl_events *events)
{
    (void)ctx;
    fps_run_command((const fps_player *)from, cmd, (fps_player *)to, first_prediction, events);
}

static void resolve_event_cb(void *ctx, const zl_event *ev, void *players, int count,
                             const zl_shot_tracer *tracer, zl_events *events)
{
    fps_resolve_event((fps_game *)ctx, ev, (fps_player *)players, count, tracer, events);
}

static void tick_entities_cb(void *ctx, void *players, int count, uint32_t msec,
                             zl_events *events)
{
    fps_tick_entities((fps_game *)ctx, (fps_player *)players, count, msec, events);
}

static int hitboxes_cb(void *ctx, const void *player, int32_t entity, zl_hitbox *out, int max)
{
    (void)ctx;
    return fps_player_hitboxes((const fps_player *)player, entity, out, max);
}

static int trace_cb(void *ctx, const zl_vec3 *start, const zl_vec3 *end, const zl_hitbox *boxes,
                    int count, zl_trace *out)
{
    (void)ctx;
    return fps_trace(start, end, boxes, count, out);
}

static void player_join_cb(void *ctx, void *player, int slot)
{
    fps_player_join((fps_game *)ctx, (fps_player *)player, slot);
}

static void player_leave_cb(void *ctx, void *player, int slot)
{
    (void)player;
    fps_player_leave((fps_game *)ctx, slot);
}

static int entity_state_cb(void *ctx, int index, void *out)
{
    const fps_entity *e = &((const fps_game *)ctx)->entities[index];
    if (e->type == FPS_ENTITY_NONE)
        return 0;
    *(fps_entity *)out = *e;
    return 1;
}

/* Every event but a refusal, which is for the server's anti-cheat count. */
static int share_event_cb(void *ctx, const zl_event *ev)
{
    (void)ctx;
    return ev->type != FPS_EV_REFUSED;
}

/* The bases an event is coded against (zl_game.event_base): 1, where its
 * source stands (a player's footsteps and jumps, an entity's explosion);
 * 2, a player's eye, aim and weapon in hand (its shots and reloads). */
static void event_base_cb(const void *state, int32_t source, uint32_t which, zl_event *base)
{
    const fps_player *p = (const fps_player *)state;
    base->target = -1;
    if (source >= ZL_MAX_CLIENTS) {
        base->origin = ((const fps_entity *)state)->origin;
    } else if (which == 1) {
        base->type = FPS_EV_FOOTSTEP;
        base->origin = p->origin;
    } else {
        base->type = FPS_EV_FIRE;
        base->param = p->weapon;
        base->origin = fps_player_eye(p);
        base->dir = fps_aim(p->yaw, p->pitch);
    }
}

zl_game fps_game_interface(fps_game *g)
{
    zl_game game;
    game.ctx = g;
    game.player_schema = &fps_player_schema;
    game.entity_schema = &fps_entity_schema;
    game.run_command = run_command_cb;
    game.resolve_event = resolve_event_cb;
    game.tick_entities = tick_entities_cb;
    game.hitboxes = hitboxes_cb;
    game.trace = trace_cb;
    game.player_join = player_join_cb;
    game.player_leave = player_leave_cb;
    game.entity_state = entity_state_cb;
    game.max_entities = FPS_MAX_ENTITIES;
    game.origin_axes = 3;
    game.player_origin_field = zl_schema_find(&fps_player_schema, "origin.x");
    game.player_teleport_field = zl_schema_find(&fps_player_schema, "teleport");
    game.entity_origin_field = zl_schema_find(&fps_entity_schema, "origin.x");
    game.entity_teleport_field = -1;
    game.relevance = NULL; /* everyone sees everything unless a server opts in */
    game.event_schema = &fps_event_schema;
    game.share_event = share_event_cb;
    game.event_base = event_base_cb;
    game.event_bases = 2;
    return game;
}
