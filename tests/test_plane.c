/* test_plane.c - a 2D game through zl_game: players with x, y and a
 * heading only, no entities, played as a whole match over the loop network. */
#include <string.h>

#include "zl_match.h"
#include "zl_test.h"

#define BOTS ZL_MATCH_BOTS
#define m zl_match_world

/* ---- the game: a top-down arena, hitscan only, nobody ever dies ---- */

typedef struct plane_player {
    zl_fx x, y;       /* the origin, units; z does not exist */
    zl_angle heading; /* where the player faces and shoots */
} plane_player;

static const zl_field plane_fields[] = {
    ZL_FIELD_FX(plane_player, x, -1024, 1023, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(plane_player, y, -1024, 1023, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_ANGLE(plane_player, heading, 16, ZL_INTERP_ARC),
};
static const zl_schema plane_schema = ZL_SCHEMA(plane_player, plane_fields);

#define PLANE_ARENA ZL_FX_INT(512)  /* players stay within +/- this */
#define PLANE_SPEED 160             /* units per second at full stick */
#define PLANE_RADIUS ZL_FX_INT(12)  /* half the side of a player's box */
#define PLANE_RANGE ZL_FX_INT(2048) /* of a shot; the arena's diagonal fits */
#define PLANE_BUTTON_FIRE 1u
enum { PLANE_EV_FIRE = 1, PLANE_EV_HIT = 2 };

static zl_fx clamp_arena(zl_fx v)
{
    return v < -PLANE_ARENA ? -PLANE_ARENA : v > PLANE_ARENA ? PLANE_ARENA : v;
}

/* The heading is the command's yaw; forward and side move along and across
 * it, then the shot (if any) leaves from where the move ended. */
static void plane_run(void *ctx, const void *from, const zl_usercmd *cmd, void *to,
                      int first_prediction, zl_events *events)
{
    plane_player p = *(const plane_player *)from;
    zl_fx step = (zl_fx)((int64_t)ZL_FX_INT(PLANE_SPEED) * cmd->msec / 1000);
    zl_fx ahead = step * cmd->forward / ZL_USERCMD_MOVE_MAX;
    zl_fx across = step * cmd->side / ZL_USERCMD_MOVE_MAX;
    zl_fx c, s;
    (void)ctx;
    p.heading = cmd->yaw;
    c = zl_cos(p.heading);
    s = zl_sin(p.heading);
    p.x = clamp_arena(p.x + zl_fx_mul(ahead, c) + zl_fx_mul(across, s));
    p.y = clamp_arena(p.y + zl_fx_mul(ahead, s) - zl_fx_mul(across, c));
    zl_schema_quantize(&plane_schema, &p);
    *(plane_player *)to = p;
    if (first_prediction && (cmd->buttons & PLANE_BUTTON_FIRE)) {
        zl_event ev;
        memset(&ev, 0, sizeof ev);
        ev.type = PLANE_EV_FIRE;
        ev.target = -1;
        ev.origin = zl_vec3_make(p.x, p.y, 0);
        ev.dir = zl_vec3_make(c, s, 0);
        zl_events_push(events, &ev);
    }
}

static int plane_hitboxes(void *ctx, const void *player, int32_t entity, zl_hitbox *out, int max)
{
    const plane_player *p = (const plane_player *)player;
    (void)ctx;
    if (max < 1)
        return 0;
    out->box.min = zl_vec3_make(p->x - PLANE_RADIUS, p->y - PLANE_RADIUS, -PLANE_RADIUS);
    out->box.max = zl_vec3_make(p->x + PLANE_RADIUS, p->y + PLANE_RADIUS, PLANE_RADIUS);
    out->entity = entity;
    out->part = 0;
    return 1;
}

/* An open arena: only the boxes stop a shot. */
static int plane_trace(void *ctx, const zl_vec3 *start, const zl_vec3 *end, const zl_hitbox *boxes,
                       int count, zl_trace *out)
{
    (void)ctx;
    memset(out, 0, sizeof *out);
    out->entity = ZL_TRACE_WORLD;
    out->part = -1;
    return zl_trace_boxes(start, end, boxes, count, 0, out);
}

static zl_vec3 shot_end(const zl_event *shot)
{
    return zl_vec3_add(shot->origin, zl_vec3_scale(shot->dir, PLANE_RANGE));
}

/* zl_server always hands a tracer (lag-compensated or the present). */
static void plane_resolve(void *ctx, const zl_event *ev, void *players, int count,
                          const zl_shot_tracer *tracer, zl_events *events)
{
    zl_vec3 end = shot_end(ev);
    zl_trace tr;
    (void)ctx;
    (void)players;
    (void)count;
    if (ev->type != PLANE_EV_FIRE)
        return;
    if (tracer->trace(tracer->ctx, &ev->origin, &end, ev->source, &tr) > 0) {
        zl_event hit = *ev;
        hit.type = PLANE_EV_HIT;
        hit.target = tr.entity;
        hit.origin = tr.hit.point;
        zl_events_push(events, &hit);
    }
}

static void plane_tick(void *ctx, void *players, int count, uint32_t msec, zl_events *events)
{
    (void)ctx;
    (void)players;
    (void)count;
    (void)msec;
    (void)events;
}

/* Slots spread over the arena, facing its centre line. */
static void plane_join(void *ctx, void *player, int slot)
{
    plane_player *p = (plane_player *)player;
    (void)ctx;
    p->x = ZL_FX_INT(150 * (slot % 4) - 225);
    p->y = ZL_FX_INT(slot % 2 ? 200 : -200);
    p->heading = (zl_angle)(slot % 2 ? 49152u : 16384u);
}

/* Nothing to forget: the only rule that reads players is the shot, and
 * lag compensation has already forgotten the slot. */
static void plane_leave(void *ctx, void *player, int slot)
{
    (void)ctx;
    (void)player;
    (void)slot;
}

/* Players only: no entity schema, entity_state or max_entities. */
static const zl_game plane_rules = {
    .player_schema = &plane_schema,
    .run_command = plane_run,
    .resolve_event = plane_resolve,
    .tick_entities = plane_tick,
    .hitboxes = plane_hitboxes,
    .trace = plane_trace,
    .player_join = plane_join,
    .player_leave = plane_leave,
    .origin_axes = 2,
    .player_origin_field = 0,
    .player_teleport_field = -1,
};

/* ---- the bots ---- */

/* Bots circle, each at its own rate; every fifth frame a bot stands, turns
 * to the next bot where its client draws it, with an aim error of up to
 * about 9 degrees that changes from shot to shot, and fires. */
static void plane_command(int i, zl_usercmd *c)
{
    uint32_t f = m.frame;
    const plane_player *me = (const plane_player *)zl_client_predicted(&m.client[i]);
    int target = zl_client_slot(&m.client[(i + 1) % BOTS]);
    const plane_player *it = (const plane_player *)zl_client_entity(&m.client[i], target);
    memset(c, 0, sizeof *c);
    c->msec = (uint16_t)(ZL_MATCH_FRAME_US / 1000u);
    c->forward = 127;
    c->side = (int8_t)((f / 90u + (uint32_t)i) % 2u ? 40 : -40);
    c->yaw = (zl_angle)(f * (uint32_t)(150 + 50 * i));
    if (me && it && f % 5u == (uint32_t)i % 5u) {
        c->forward = 0;
        c->side = 0;
        c->yaw = (zl_angle)(zl_atan2(it->y - me->y, it->x - me->x) + (f * 7919u) % 3277u - 1638u);
        c->buttons = PLANE_BUTTON_FIRE;
    }
}

/* What bot i's shot meets among the others as its client draws them. */
static int32_t plane_sight(int i, const zl_event *shot)
{
    zl_hitbox boxes[BOTS];
    zl_vec3 end = shot_end(shot);
    zl_trace tr;
    int j, n = 0;
    for (j = 0; j < BOTS; j++) {
        int slot = zl_client_slot(&m.client[j]);
        const void *p = zl_client_entity(&m.client[i], slot);
        if (j != i && p)
            n += plane_hitboxes(NULL, p, slot, boxes + n, 1);
    }
    return plane_trace(NULL, &shot->origin, &end, boxes, n, &tr) > 0 ? tr.entity : -1;
}

static const zl_match_game plane_bots = {&plane_rules, plane_command, plane_sight, PLANE_EV_FIRE,
                                         PLANE_EV_HIT};

/* ---- tests ---- */

static void test_plane_origin(void)
{
    ZL_CHECK_EQ(zl_schema_validate(&plane_schema), ZL_OK);
    ZL_CHECK(zl_origin_ok(&plane_schema, 0, 2));
    ZL_CHECK(!zl_origin_ok(&plane_schema, 0, 3)); /* the heading is no z */
    ZL_CHECK(!zl_origin_ok(&plane_schema, 1, 2));
    ZL_CHECK(!zl_origin_ok(&plane_schema, 0, 4));
    ZL_CHECK(zl_origin_ok(&plane_schema, -1, 0));
}

/* A 2D origin's teleport test is Euclidean in the plane: a diagonal step of
 * 50 units on both axes (70.7) is a jump, 40 on both (56.6) is not. */
static void test_plane_teleport(void)
{
    static zl_interp_history h;
    zl_interp_config c;
    plane_player p;
    memset(&p, 0, sizeof p);
    zl_interp_config_init(&c, &plane_schema);
    c.origin_field = 0;
    c.origin_axes = 2;
    zl_interp_reset(&h);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 1, 1000, &p), ZL_OK);
    p.x = p.y = ZL_FX_INT(40);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 2, 2000, &p), ZL_OK);
    p.x = p.y = ZL_FX_INT(90);
    ZL_CHECK_EQ(zl_interp_push(&h, &c, 3, 3000, &p), ZL_INTERP_RESTARTED);
}

/* 150 ms round trip, 15 ms jitter and 2% loss each way. Movement is all
 * the client can know, so prediction is never wrong; other players are
 * drawn between snapshots; every shot the server judges meets what its
 * shooter drew. */
static void test_plane_match(void)
{
    zl_match_setup s;
    zl_match_tally t;
    uint32_t from, rtt = 0, mispredicted = 0, reconciled = 0, draws = 0, extrapolated = 0, lost = 0;
    uint32_t trusted = 0, k;
    int i;
    memset(&s, 0, sizeof s);
    s.rtt_us = 150000u;
    s.jitter_us = 15000u;
    s.loss_ppm = 20000u;
    s.lag_compensation = 1;
    s.firing = 1;
    s.game = &plane_bots;
    zl_match_start(&s);
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    ZL_CHECK_EQ(m.server.lagcomp.settings.origin_axes, 2);
    from = m.shots;
    zl_match_run(8000000u);
    zl_match_tally_shots(from, &t);
    for (i = 0; i < BOTS; i++) {
        zl_client_stats st;
        int j;
        zl_client_get_stats(&m.client[i], zl_test_time_us, &st);
        mispredicted += st.predict.mispredicted;
        reconciled += st.predict.reconciled;
        draws += st.draws;
        extrapolated += st.extrapolated;
        lost += zl_conditioner_get_stats(&m.cond[i], ZL_CONDITIONER_SEND)->dropped_loss +
                zl_conditioner_get_stats(&m.cond[i], ZL_CONDITIONER_RECEIVE)->dropped_loss;
        rtt += st.link.rtt_us / BOTS;
        /* Others are drawn near where the server has them (160 units/s,
         * drawn about 0.2 s in the past). */
        for (j = 0; j < BOTS; j++) {
            int slot = zl_client_slot(&m.client[j]);
            const plane_player *drawn = (const plane_player *)zl_client_entity(&m.client[i], slot);
            const plane_player *real = (const plane_player *)zl_server_player(&m.server, slot);
            if (i == j || !drawn || !real) {
                ZL_CHECK(i == j ? drawn == NULL : drawn && real);
                continue;
            }
            ZL_CHECK(zl_fx_abs(drawn->x - real->x) < ZL_FX_INT(64));
            ZL_CHECK(zl_fx_abs(drawn->y - real->y) < ZL_FX_INT(64));
        }
    }
    for (k = 0; k < m.verdicts; k++)
        trusted += (m.verdict[k].flags & ZL_LAGCOMP_TRUSTED) != 0;
    zl_test_note("2D, %d bots, 150 ms rtt (%u ms measured), 15 ms jitter, 2%% loss "
                 "(%u datagrams lost): %u reconciliations, %u mispredicted; %u draws, "
                 "%u extrapolated",
                 BOTS, rtt / 1000u, lost, reconciled, mispredicted, draws, extrapolated);
    zl_test_note("%u shots, agree %u of %u judged (%u hits, %u extrapolated, %u clamped); "
                 "rewind posed %u players, skipped %u",
                 t.shots, t.agree, t.judged, t.hits, t.extrapolated, t.clamped,
                 m.server.lagcomp.stats.posed, m.server.lagcomp.stats.skipped);
    ZL_CHECK(lost > 0);
    ZL_CHECK(reconciled > 1000u);
    ZL_CHECK_EQ(mispredicted, 0);
    ZL_CHECK(draws > 1000u);
    ZL_CHECK_EQ(m.unkept, 0);
    ZL_CHECK(t.judged > 50u && t.judged + 8u * BOTS >= t.shots);
    ZL_CHECK_EQ(t.agree, t.judged);
    ZL_CHECK(t.hits > 0 && t.hits < t.judged); /* both outcomes were judged */
    ZL_CHECK(rtt > 140000u && rtt < 250000u);
    ZL_CHECK(m.verdicts > 0 && trusted == m.verdicts);
    ZL_CHECK(m.server.lagcomp.stats.skipped > 0); /* the 2D broadphase worked */
    ZL_CHECK(m.server_hits > 0);
}

void zl_suite_plane(void)
{
    ZL_RUN(test_plane_origin);
    ZL_RUN(test_plane_teleport);
    ZL_RUN(test_plane_match);
}
