/* fps_server.c - the rules only the server runs: shot traces and damage,
 * rockets and their blasts, death and respawn. */
#include "fps.h"

#include <string.h>

#define ROCKET_SPEED ZL_FX_INT(1000)
#define ROCKET_LIFETIME_MS 5000
#define SPLASH_RADIUS ZL_FX_INT(160)

/* Server events name their own source (the attacker), not the sink's. */
static void emit(zl_events *events, int32_t source, uint16_t type, uint16_t param,
                 int32_t target, zl_vec3 where)
{
    int32_t saved;
    if (!events)
        return;
    saved = events->source;
    events->source = source;
    fps_emit(events, type, param, target, where, zl_vec3_make(0, 0, 0));
    events->source = saved;
}

/* 1 while a client holds slot: a slot it left is out of every rule. */
static int in_game(const fps_game *g, int slot)
{
    return !g->left[slot];
}

static void hurt(const fps_game *g, fps_player *players, int victim, int attacker, int amount,
                 zl_vec3 where, zl_events *events)
{
    fps_player *p = &players[victim];
    if (!in_game(g, victim) || (p->flags & FPS_PF_DEAD) || amount <= 0)
        return;
    emit(events, attacker, FPS_EV_HIT, (uint16_t)amount, victim, where);
    if (amount < p->health) {
        p->health = (uint8_t)(p->health - amount);
        return;
    }
    p->health = 0;
    p->flags = (uint8_t)((p->flags | FPS_PF_DEAD) & ~FPS_PF_RELOADING);
    p->respawn_time = FPS_RESPAWN_MS;
    emit(events, attacker, FPS_EV_KILL, 0, victim, p->origin);
}

/* Traces against the world and the live players in the game but `skip`
 * (the shooter, or a rocket's owner it passes through). */
static int trace_live(const fps_game *g, const fps_player *players, int count,
                      const zl_vec3 *start, const zl_vec3 *end, int32_t skip, zl_trace *out)
{
    zl_hitbox boxes[2 * FPS_MAX_PLAYERS];
    int i, n = 0;
    for (i = 0; i < count; i++)
        if (i != skip && in_game(g, i))
            n += fps_player_hitboxes(&players[i], i, boxes + n, 2);
    return fps_trace(start, end, boxes, n, out);
}

static void resolve_fire(const fps_game *g, const zl_event *ev, fps_player *players, int count,
                         const zl_shot_tracer *tracer, zl_events *events)
{
    zl_vec3 end = zl_vec3_add(ev->origin, zl_vec3_scale(ev->dir, FPS_HITSCAN_RANGE));
    zl_trace tr;
    int amount, rc;
    rc = tracer ? tracer->trace(tracer->ctx, &ev->origin, &end, ev->source, &tr)
                : trace_live(g, players, count, &ev->origin, &end, ev->source, &tr);
    if (rc != 1)
        return;
    if (tr.entity == ZL_TRACE_WORLD) {
        emit(events, ev->source, FPS_EV_HIT, 0, -1, tr.hit.point);
        return;
    }
    /* A tracer may know more players than were handed in; damage can only
     * land on those that were. */
    if (tr.entity < 0 || tr.entity >= count)
        return;
    amount = fps_weapon_damage(ev->param);
    if (tr.part == FPS_PART_HEAD)
        amount *= FPS_HEAD_MULTIPLIER;
    hurt(g, players, tr.entity, ev->source, amount, tr.hit.point, events);
}

static void launch(fps_game *g, const zl_event *ev)
{
    size_t i;
    for (i = 0; i < FPS_MAX_ENTITIES; i++) {
        fps_entity *e = &g->entities[i];
        if (e->type != FPS_ENTITY_NONE)
            continue;
        e->type = FPS_ENTITY_ROCKET;
        e->owner = (uint8_t)ev->source;
        e->age = 0;
        e->origin = ev->origin;
        e->velocity = zl_vec3_scale(ev->dir, ROCKET_SPEED);
        zl_schema_quantize(&fps_entity_schema, e);
        return;
    }
    g->entities_refused++;
}

/* Input the rules refused, per player, for the server's cheat counters. */
static void count_refusal(fps_game *g, const zl_event *ev)
{
    fps_refusals *r;
    if (ev->source < 0 || ev->source >= FPS_MAX_PLAYERS)
        return;
    r = &g->refusals[ev->source];
    if (ev->type == FPS_EV_EMPTY)
        r->dry_fires++;
    else if (ev->param == FPS_REFUSED_EARLY)
        r->early_shots++;
    else if (ev->param == FPS_REFUSED_PITCH)
        r->pitch_clamps++;
}

void fps_resolve_event(fps_game *g, const zl_event *ev, fps_player *players, int count,
                       const zl_shot_tracer *tracer, zl_events *events)
{
    ZL_ASSERT(g && ev && players && count >= 0 && count <= FPS_MAX_PLAYERS);
    if (ev->type == FPS_EV_EMPTY || ev->type == FPS_EV_REFUSED)
        count_refusal(g, ev);
    if (ev->type != FPS_EV_FIRE && ev->type != FPS_EV_LAUNCH)
        return;
    /* Shots come from our own run_command, but a bad one is dropped, not
     * trusted: the shooter must be a live player and the weapon real. */
    if (ev->source < 0 || ev->source >= count || ev->param >= FPS_WEAPON_COUNT ||
        !in_game(g, ev->source) || (players[ev->source].flags & FPS_PF_DEAD))
        return;
    if (ev->type == FPS_EV_FIRE)
        resolve_fire(g, ev, players, count, tracer, events);
    else
        launch(g, ev);
}

/* Splash falls off linearly from full damage at the blast to nothing at
 * SPLASH_RADIUS, measured to the nearest point of each player's hull (so
 * a rocket at someone's feet hurts as much as one in their chest). No
 * line-of-sight test: crates do not shield from blasts. */
static void explode(const fps_game *g, const fps_entity *e, zl_vec3 where, fps_player *players,
                    int count, zl_events *events)
{
    int i;
    emit(events, e->owner, FPS_EV_EXPLODE, 0, -1, where);
    for (i = 0; i < count; i++) {
        zl_box hull = fps_player_hull(&players[i]);
        zl_vec3 lo = zl_vec3_add(players[i].origin, hull.min);
        zl_vec3 hi = zl_vec3_add(players[i].origin, hull.max);
        zl_vec3 nearest;
        zl_fx dist;
        nearest.x = where.x < lo.x ? lo.x : where.x > hi.x ? hi.x : where.x;
        nearest.y = where.y < lo.y ? lo.y : where.y > hi.y ? hi.y : where.y;
        nearest.z = where.z < lo.z ? lo.z : where.z > hi.z ? hi.z : where.z;
        dist = zl_vec3_length(zl_vec3_sub(where, nearest));
        if (dist < SPLASH_RADIUS)
            hurt(g, players, i, e->owner,
                 (int)((int64_t)fps_weapon_damage(FPS_WEAPON_LAUNCHER) * (SPLASH_RADIUS - dist) /
                       SPLASH_RADIUS),
                 where, events);
    }
}

/* Rockets fly in the present (no lag compensation, as in Half-Life) and
 * pass through their owner. */
static void fly(const fps_game *g, fps_entity *e, fps_player *players, int count, uint32_t msec,
                zl_events *events)
{
    zl_vec3 end = zl_vec3_add(e->origin, zl_vec3_scale(e->velocity, fps_msec_to_seconds(msec)));
    zl_trace tr;
    int rc = trace_live(g, players, count, &e->origin, &end, e->owner, &tr);
    e->age = (uint16_t)(e->age + msec > 65535u ? 65535u : e->age + msec);
    if (rc == 1)
        explode(g, e, tr.hit.point, players, count, events);
    if (rc != 0 || e->age >= ROCKET_LIFETIME_MS) {
        memset(e, 0, sizeof *e); /* burst, fizzled, or left the range */
        return;
    }
    e->origin = end;
    zl_schema_quantize(&fps_entity_schema, e);
}

void fps_player_spawn(fps_game *g, fps_player *p)
{
    uint8_t teleport = (uint8_t)(p->teleport + 1u);
    int w;
    memset(p, 0, sizeof *p);
    fps_world_spawn_point(g->spawn_next++, &p->origin, &p->yaw);
    p->health = FPS_HEALTH_MAX;
    p->weapon = FPS_WEAPON_RIFLE;
    for (w = 0; w < FPS_WEAPON_COUNT; w++)
        p->clip[w] = (uint8_t)fps_weapon_clip_size(w);
    p->teleport = teleport;
    zl_schema_quantize(&fps_player_schema, p);
}

void fps_player_join(fps_game *g, fps_player *p, int slot)
{
    ZL_ASSERT(g && p && slot >= 0 && slot < FPS_MAX_PLAYERS);
    memset(&g->refusals[slot], 0, sizeof g->refusals[slot]);
    g->left[slot] = 0;
    fps_player_spawn(g, p);
}

void fps_player_leave(fps_game *g, int slot)
{
    ZL_ASSERT(g && slot >= 0 && slot < FPS_MAX_PLAYERS);
    g->left[slot] = 1;
}

void fps_tick_entities(fps_game *g, fps_player *players, int count, uint32_t msec,
                       zl_events *events)
{
    size_t i;
    int k;
    ZL_ASSERT(g && players && count >= 0 && count <= FPS_MAX_PLAYERS);
    for (i = 0; i < FPS_MAX_ENTITIES; i++)
        if (g->entities[i].type == FPS_ENTITY_ROCKET)
            fly(g, &g->entities[i], players, count, msec, events);
    for (k = 0; k < count; k++) {
        fps_player *p = &players[k];
        if (!in_game(g, k) || !(p->flags & FPS_PF_DEAD))
            continue;
        if (p->respawn_time > msec) {
            p->respawn_time = (uint16_t)(p->respawn_time - msec);
            continue;
        }
        fps_player_spawn(g, p);
        emit(events, k, FPS_EV_RESPAWN, 0, k, p->origin);
    }
}

/* ---- relevance ---- */

/* The cell of an origin, edges clamped (a player may stand on the walls). */
static unsigned grid_coord(zl_fx v)
{
    int32_t off = v + ZL_FX_INT(FPS_ARENA_HALF);
    int32_t cell = off < 0 ? 0 : off / ZL_FX_INT(2 * FPS_ARENA_HALF / FPS_GRID);
    return cell >= FPS_GRID ? FPS_GRID - 1u : (unsigned)cell;
}

/* Files every player into its cell once a tick: every client's query of
 * that tick reads the same grid. */
static void build_grid(fps_game *g, uint32_t tick, const fps_player *players,
                       const uint8_t *present, int count)
{
    int k;
    memset(g->cell_head, 0, sizeof g->cell_head);
    for (k = count - 1; k >= 0; k--) {
        unsigned cell;
        if (!present[k])
            continue;
        cell = grid_coord(players[k].origin.y) * FPS_GRID + grid_coord(players[k].origin.x);
        g->cell_of[k] = (uint8_t)cell;
        g->cell_next[k] = g->cell_head[cell];
        g->cell_head[cell] = (uint16_t)(k + 1);
    }
    g->grid_tick = tick;
    g->grid_valid = 1;
}

int fps_relevance(fps_game *g, uint32_t tick, const fps_player *players, const uint8_t *present,
                  int count, int slot, uint16_t *ids, uint32_t *priority, int max)
{
    int n = 0, ring, i;
    int cx, cy;
    if (!g->grid_valid || g->grid_tick != tick)
        build_grid(g, tick, players, present, count);
    cx = (int)(g->cell_of[slot] % FPS_GRID);
    cy = (int)(g->cell_of[slot] / FPS_GRID);
    for (ring = 0; ring < FPS_GRID && n < FPS_RELEVANT_PLAYERS; ring++) {
        uint32_t weight = ring == 0 ? 8u : ring == 1 ? 4u : 1u;
        int x, y;
        for (y = cy - ring; y <= cy + ring; y++)
            for (x = cx - ring; x <= cx + ring; x++) {
                uint16_t k;
                /* Only the ring's border: its inside was an earlier ring. */
                if (x < 0 || y < 0 || x >= FPS_GRID || y >= FPS_GRID ||
                    (x != cx - ring && x != cx + ring && y != cy - ring && y != cy + ring))
                    continue;
                for (k = g->cell_head[y * FPS_GRID + x]; k != 0 && n < max;
                     k = g->cell_next[k - 1u]) {
                    ids[n] = (uint16_t)(k - 1u);
                    priority[n++] = weight;
                }
            }
    }
    for (i = 0; i < FPS_MAX_ENTITIES && n < max; i++)
        if (g->entities[i].type != FPS_ENTITY_NONE) {
            ids[n] = (uint16_t)(ZL_MAX_CLIENTS + i);
            priority[n++] = 4u;
        }
    return n;
}

int fps_relevance_cb(void *ctx, uint32_t tick, const void *players, const uint8_t *present,
                     int count, int slot, uint16_t *ids, uint32_t *priority, int max)
{
    return fps_relevance((fps_game *)ctx, tick, (const fps_player *)players, present, count, slot,
                         ids, priority, max);
}
