/* demo_game.c - witnesses every hitscan shot: the client traces it against
 * what it drew; the server's verdict is recorded with the boxes it used. */
#include <string.h>

#include "demo_game.h"
#include "demo_impact.h"

int demo_player_box(const fps_player *p, zl_box *out)
{
    zl_hitbox boxes[ZL_LAGCOMP_HITBOXES];
    int n = fps_player_hitboxes(p, 0, boxes, ZL_LAGCOMP_HITBOXES), i;
    memset(out, 0, sizeof *out);
    for (i = 0; i < n; i++) {
        const zl_box *b = &boxes[i].box;
        if (i == 0) {
            *out = *b;
            continue;
        }
        out->min.x = b->min.x < out->min.x ? b->min.x : out->min.x;
        out->min.y = b->min.y < out->min.y ? b->min.y : out->min.y;
        out->min.z = b->min.z < out->min.z ? b->min.z : out->min.z;
        out->max.x = b->max.x > out->max.x ? b->max.x : out->max.x;
        out->max.y = b->max.y > out->max.y ? b->max.y : out->max.y;
        out->max.z = b->max.z > out->max.z ? b->max.z : out->max.z;
    }
    return n > 0;
}

static zl_vec3 shot_end(const zl_event *fire)
{
    return zl_vec3_add(fire->origin, zl_vec3_scale(fire->dir, FPS_HITSCAN_RANGE));
}

int demo_sight(const zl_client *c, int self, const zl_event *fire, zl_box *drawn)
{
    zl_hitbox boxes[2 * ZL_MAX_CLIENTS];
    zl_trace tr;
    zl_vec3 end = shot_end(fire);
    int slot, n = 0;
    memset(drawn, 0, sizeof *drawn);
    for (slot = 0; slot < ZL_MAX_CLIENTS; slot++) {
        const fps_player *p = (const fps_player *)zl_client_entity(c, slot);
        if (slot != self && p)
            n += fps_player_hitboxes(p, slot, boxes + n, 2);
    }
    if (fps_trace(&fire->origin, &end, boxes, n, &tr) != 1 || tr.entity < 0)
        return -1;
    demo_player_box((const fps_player *)zl_client_entity(c, tr.entity), drawn);
    return tr.entity;
}

/* ---- The server's side ---- */

/* The time the command that fired claims it drew the world at. */
static void claimed_time(const zl_usercmd *cmd, zl_lagcomp_time *when)
{
    memset(when, 0, sizeof *when);
    when->tick_a = cmd->render_tick;
    when->t = (zl_fx)((uint32_t)cmd->render_whole << 16) + cmd->render_frac;
    when->tick_b = when->t ? cmd->render_tick + cmd->render_span : when->tick_a;
}

/* Takes the server's record of the trace it just made: the box it traced
 * the target at, and whether that was exactly the pose the command claims
 * the shooter drew (render tick, span and fraction). */
static void take_record(demo_game *g, demo_rec_verdict *v)
{
    uint32_t n;
    const zl_server_shot *shots = zl_server_shots(g->server, &n, NULL);
    const zl_server_shot *last = n ? &shots[n - 1u] : NULL;
    zl_lagcomp_time claim;
    if (!last || last->sequence != g->cmd.sequence)
        return; /* the tick's list was full: nothing kept */
    claimed_time(&g->cmd, &claim);
    v->rewound = last->hit.rewound;
    v->rebuilt = last->hit.when.tick_a == claim.tick_a && last->hit.when.tick_b == claim.tick_b &&
                 last->hit.when.t == claim.t;
}

/* The target's box in the present; none (left empty) for a slot nobody
 * holds, which lag compensation, tracing only players in the game, should
 * never name. */
static void witness_target_box(demo_game *g, demo_rec_verdict *v)
{
    const void *target = zl_server_player(g->server, v->target);
    if (target)
        demo_player_box((const fps_player *)target, &v->current);
}

static int witness_trace(void *ctx, const zl_vec3 *start, const zl_vec3 *end, int32_t shooter,
                         zl_trace *out)
{
    demo_game *g = (demo_game *)ctx;
    demo_rec_verdict *v = g->verdict;
    int rc = g->tracer->trace(g->tracer->ctx, start, end, shooter, out);
    v->traced = 1;
    if (rc == 1) {
        v->point = out->hit.point;
        v->target = out->entity >= 0 ? out->entity : -1;
    }
    /* Damage lands after the trace: the live state is still the present
     * the shot was traced in. */
    if (v->target >= 0)
        witness_target_box(g, v);
    take_record(g, v);
    return rc;
}

static void watched_run_command(void *ctx, const void *from, const zl_usercmd *cmd, void *to,
                                int first_prediction, zl_events *events)
{
    demo_game *g = (demo_game *)ctx;
    const fps_player *p = (const fps_player *)from;
    if (first_prediction) {
        g->cmd = *cmd;
        g->runner = events ? events->source : -1;
        /* Only the server sees a dead shooter's trigger: the client fired
         * because it did not know yet. */
        if (g->server && (p->flags & FPS_PF_DEAD) && (cmd->buttons & FPS_BUTTON_ATTACK) &&
            g->deadfire_count < DEMO_VERDICTS) {
            g->deadfire[g->deadfire_count].shooter = g->runner;
            g->deadfire[g->deadfire_count].sequence = cmd->sequence;
            g->deadfire_count++;
        }
    }
    g->inner.run_command(g->inner.ctx, from, cmd, to, first_prediction, events);
}

static void watched_resolve_event(void *ctx, const zl_event *ev, void *players, int count,
                                  const zl_shot_tracer *tracer, zl_events *events)
{
    demo_game *g = (demo_game *)ctx;
    zl_shot_tracer witness;
    demo_rec_verdict *v;
    if (ev->type != FPS_EV_FIRE || !tracer || !g->server) {
        g->inner.resolve_event(g->inner.ctx, ev, players, count, tracer, events);
        return;
    }
    if (g->verdict_count >= DEMO_VERDICTS) {
        g->verdicts_lost++;
        g->inner.resolve_event(g->inner.ctx, ev, players, count, tracer, events);
        return;
    }
    v = &g->verdicts[g->verdict_count++];
    memset(v, 0, sizeof *v);
    v->shooter = ev->source;
    v->sequence = g->cmd.sequence;
    v->weapon = ev->param;
    v->target = -1;
    v->eye = ev->origin;
    v->dir = ev->dir;
    g->tracer = tracer;
    g->verdict = v;
    witness.ctx = g;
    witness.trace = witness_trace;
    g->inner.resolve_event(g->inner.ctx, ev, players, count, &witness, events);
}

/* Every event the server shares passes here once: the kills are noted
 * for the kill feed. */
static int watched_share_event(void *ctx, const zl_event *ev)
{
    demo_game *g = (demo_game *)ctx;
    if (ev->type == FPS_EV_KILL && g->server) {
        if (ev->source >= 0 && ev->source < ZL_MAX_CLIENTS && ev->source != ev->target)
            g->frags[ev->source]++;
        if (g->kill_count < DEMO_VERDICTS) {
            g->kill[g->kill_count][0] = ev->source;
            g->kill[g->kill_count][1] = ev->target;
            g->kill_count++;
        } else {
            g->kills_lost++;
        }
    }
    return g->inner.share_event(g->inner.ctx, ev);
}

void demo_game_init(demo_game *g)
{
    memset(g, 0, sizeof *g);
    fps_game_init(&g->fps);
    g->inner = fps_game_interface(&g->fps);
    g->rules = g->inner;
    g->rules.ctx = g;
    g->rules.run_command = watched_run_command;
    g->rules.resolve_event = watched_resolve_event;
    g->rules.share_event = watched_share_event;
    g->runner = -1;
}

void demo_game_watch(demo_game *g, const zl_server *s)
{
    g->server = s;
}

void demo_game_flush(demo_game *g, uint32_t time_ms, const demo_sink *sink)
{
    uint32_t i;
    for (i = 0; i < g->verdict_count; i++) {
        g->verdicts[i].time_ms = time_ms;
        demo_sink_put(sink, DEMO_REC_VERDICT, &g->verdicts[i]);
    }
    for (i = 0; i < g->deadfire_count; i++)
        demo_sink_put(sink, DEMO_REC_DEADFIRE, &g->deadfire[i]);
    g->verdict_count = 0;
    g->deadfire_count = 0;
}

void demo_game_kill_feed(demo_game *g, zl_server *s)
{
    uint32_t i;
    for (i = 0; i < g->kill_count; i++) {
        int32_t killer = g->kill[i][0];
        uint16_t frags = killer >= 0 && killer < ZL_MAX_CLIENTS ? g->frags[killer] : 0;
        uint8_t msg[DEMO_MSG_KILL_BYTES];
        msg[0] = DEMO_MSG_KILL;
        msg[1] = (uint8_t)killer;
        msg[2] = (uint8_t)g->kill[i][1];
        msg[3] = (uint8_t)(frags > 255u ? 255u : frags);
        /* A client whose queue is full misses this line; the server's
         * channel counts the refusal. */
        (void)zl_server_broadcast_message(s, msg, sizeof msg);
    }
    g->kill_count = 0;
}

void demo_game_impacts(const demo_game *g, zl_server *s)
{
    uint32_t i;
    for (i = 0; i < g->verdict_count; i++) {
        const demo_rec_verdict *v = &g->verdicts[i];
        uint8_t msg[DEMO_MSG_IMPACT_BYTES];
        demo_impact impact;
        if (v->target < 0 || v->target >= ZL_MAX_CLIENTS || v->shooter < 0)
            continue;
        impact.target = v->target;
        impact.sequence = v->sequence;
        impact.rewound = v->rewound;
        impact.current = v->current;
        demo_impact_write(msg, &impact);
        /* A full queue loses this overlay only; the channel counts it. */
        (void)zl_server_send_message(s, v->shooter, msg, sizeof msg);
    }
}
