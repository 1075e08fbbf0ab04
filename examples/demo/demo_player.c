/* demo_player.c - drives one client for the demo: frames and commands, and
 * the bookkeeping that lets the report judge prediction and every shot. */
#include <string.h>

#include "demo_impact.h"
#include "demo_player.h"
#include "zl_client_blocks.h"

static void bot_input(void *ctx, const zl_client *c, int self, uint64_t now_us, uint16_t msec,
                      int may_fire, zl_usercmd *out)
{
    (void)now_us;
    demo_bot_think((demo_bot *)ctx, c, self, msec, may_fire, out);
}

int demo_player_init(demo_player *p, const zl_client_config *cfg, const zl_platform *hal,
                     const zl_conditioner *cond, uint64_t nonce, uint64_t bot_seed,
                     demo_sink sink)
{
    zl_client_config config = *cfg;
    int rc;
    memset(p, 0, sizeof *p);
    demo_game_init(&p->game);
    /* The server's gamestate lands in the player's own buffer. */
    config.block_buffer = p->gamestate_buffer;
    config.block_capacity = sizeof p->gamestate_buffer;
    rc = zl_client_init(&p->client, &config, &p->game.rules, hal, nonce);
    demo_bot_init(&p->bot, bot_seed);
    p->input = bot_input;
    p->input_ctx = &p->bot;
    p->cond = cond;
    p->sink = sink;
    return rc;
}

static uint32_t mispredicted(demo_player *p, uint64_t now_us)
{
    zl_client_stats st;
    zl_client_get_stats(&p->client, now_us, &st);
    return st.predict.mispredicted;
}

void demo_player_receive(demo_player *p, const zl_addr *from, void *data, size_t len,
                         uint64_t now_us)
{
    const fps_player *me = (const fps_player *)zl_client_predicted(&p->client);
    uint32_t before = mispredicted(p, now_us), after;
    uint8_t health = me ? me->health : 0, dead = me ? (me->flags & FPS_PF_DEAD) : 0;
    zl_client_receive(&p->client, from, data, len, now_us);
    after = mispredicted(p, now_us);
    me = (const fps_player *)zl_client_predicted(&p->client);
    if (after == before || !me)
        return;
    if (dead || (me->flags & FPS_PF_DEAD))
        p->mispredicted_dead += after - before;
    else if (me->health != health)
        p->mispredicted_hurt += after - before;
}

/* A hit of ours the server confirmed, beside the box we drew if the shot
 * is still remembered. */
static void show_impact(demo_player *p, const demo_impact *impact, uint64_t now_us)
{
    demo_shown_impact *shown = &p->impacts[p->impacts_next++ % DEMO_IMPACTS];
    uint32_t i;
    memset(shown, 0, sizeof *shown);
    shown->time_ms = (uint32_t)(now_us / 1000u);
    shown->target = impact->target;
    shown->rewound = impact->rewound;
    shown->current = impact->current;
    for (i = 0; i < DEMO_FIRED_KEPT; i++)
        if (p->fired[i].sequence == impact->sequence && i < p->fired_next) {
            shown->drawn = p->fired[i].drawn;
            shown->drawn_known = 1;
        }
}

/* The messages the server sent, in order: the kill feed and our impacts. */
static void read_messages(demo_player *p, uint64_t now_us)
{
    uint8_t msg[ZL_RELIABLE_MESSAGE_MAX];
    int n;
    while ((n = zl_client_receive_message(&p->client, msg, sizeof msg)) > 0) {
        demo_feed_line *line;
        demo_impact impact;
        if (demo_impact_read(msg, (size_t)n, &impact)) {
            show_impact(p, &impact, now_us);
            continue;
        }
        if (n != DEMO_MSG_KILL_BYTES || msg[0] != DEMO_MSG_KILL)
            continue; /* not a message this demo sends */
        line = &p->feed[p->feed_next++ % DEMO_FEED_LINES];
        line->killer = msg[1];
        line->victim = msg[2];
        line->frags = msg[3];
        line->time_ms = (uint32_t)(now_us / 1000u);
        p->kills_heard++;
    }
}

/* The events due this frame: others' shots are kept for the view. */
static void play_events(demo_player *p, uint64_t now_us)
{
    zl_event ev[8];
    int n, i, self = zl_client_slot(&p->client);
    while ((n = zl_client_events(&p->client, ev, (int)ZL_COUNTOF(ev))) > 0) {
        p->events_heard += (uint32_t)n;
        for (i = 0; i < n; i++) {
            demo_seen_shot *s;
            if ((ev[i].type != FPS_EV_FIRE && ev[i].type != FPS_EV_LAUNCH) || ev[i].source == self)
                continue;
            s = &p->seen[p->seen_next++ % DEMO_SEEN_SHOTS];
            s->origin = ev[i].origin;
            s->shooter = ev[i].source;
            s->time_ms = (uint32_t)(now_us / 1000u);
        }
    }
}

/* The gamestate, once complete: the names and the message of the day are
 * kept, the arena and rules compared with this build's (prediction is only
 * right when both sides run the same), and the buffer released. */
static void read_gamestate(demo_player *p)
{
    const uint8_t *data;
    fps_gamestate gs;
    int n = zl_client_block_received(&p->client, &data), i;
    if (n <= 0)
        return;
    if (fps_gamestate_read(data, (size_t)n, &gs) == ZL_OK) {
        size_t m = 0;
        p->gamestate_read = 1;
        p->gamestate_ok = (uint8_t)(gs.arena_ok && gs.rules_ok);
        p->gamestate_bytes = (uint32_t)n;
        p->gamestate_players = gs.players;
        memset(p->names, 0, sizeof p->names);
        for (i = 0; i < gs.players; i++)
            if (gs.slot[i] < ZL_MAX_CLIENTS)
                memcpy(p->names[gs.slot[i]], gs.name[i], gs.name_len[i]);
        while (m < gs.motd_len && m + 1u < sizeof p->motd && gs.motd[m] != '\n') {
            p->motd[m] = gs.motd[m] >= 32 && gs.motd[m] < 127 ? gs.motd[m] : '?';
            m++;
        }
        p->motd[m] = 0;
    }
    zl_client_block_release(&p->client);
}

void demo_player_update(demo_player *p, uint64_t now_us)
{
    zl_client_update(&p->client, now_us);
    read_messages(p, now_us);
    read_gamestate(p);
    if (!p->hello && zl_client_state(&p->client) == ZL_CLIENT_CONNECTED) {
        demo_rec_hello r;
        r.slot = zl_client_slot(&p->client);
        demo_sink_put(&p->sink, DEMO_REC_HELLO, &r);
        p->hello = 1;
    }
}

/* The shots a command just predicted, traced against what this frame drew. */
static void witness(demo_player *p, const zl_events *ev, uint64_t now_us)
{
    uint32_t i;
    for (i = 0; i < ev->count; i++) {
        const zl_event *e = &ev->items[i];
        demo_rec_shot r;
        if (e->type == FPS_EV_LAUNCH)
            p->rockets++;
        if (e->type != FPS_EV_FIRE)
            continue;
        r.time_ms = (uint32_t)(now_us / 1000u);
        r.sequence = p->game.cmd.sequence;
        r.weapon = e->param;
        r.target = demo_sight(&p->client, zl_client_slot(&p->client), e, &r.drawn);
        r.extrapolated = p->guessing;
        r.eye = e->origin;
        r.dir = e->dir;
        p->fired[p->fired_next % DEMO_FIRED_KEPT].sequence = r.sequence;
        p->fired[p->fired_next++ % DEMO_FIRED_KEPT].drawn = r.drawn;
        p->shots++;
        p->hits_seen += r.target >= 0;
        if (r.target >= 0)
            p->last_hit_ms = r.time_ms;
        demo_sink_put(&p->sink, DEMO_REC_SHOT, &r);
    }
}

void demo_player_frame(demo_player *p, uint64_t now_us, uint16_t msec, int may_fire)
{
    zl_event store[FPS_MAX_EVENTS_PER_COMMAND];
    zl_events ev;
    zl_client_stats st;
    zl_usercmd cmd;
    uint32_t extrapolated;
    int rc;
    zl_client_get_stats(&p->client, now_us, &st);
    extrapolated = st.extrapolated;
    zl_client_frame(&p->client, now_us);
    play_events(p, now_us);
    zl_client_get_stats(&p->client, now_us, &st);
    /* The server cannot rebuild a guess: shots of such frames are marked. */
    p->guessing = st.extrapolated != extrapolated;
    p->input(p->input_ctx, &p->client, zl_client_slot(&p->client), now_us, msec, may_fire, &cmd);
    zl_events_init(&ev, store, FPS_MAX_EVENTS_PER_COMMAND);
    rc = zl_client_command(&p->client, &cmd, &ev);
    p->commands_refused += (uint32_t)(rc == ZL_ERR_FULL);
    if (rc != ZL_OK)
        return;
    p->commands_made++;
    witness(p, &ev, now_us);
}

void demo_player_net(demo_player *p, uint64_t now_us, demo_rec_net *r)
{
    zl_client_stats st;
    uint32_t drawn[ZL_STATE_MAX / 4];
    const fps_player *predicted = (const fps_player *)zl_client_predicted(&p->client);
    zl_client_get_stats(&p->client, now_us, &st);
    memset(r, 0, sizeof *r);
    r->time_ms = (uint32_t)(now_us / 1000u);
    r->rtt_us = st.link.rtt_us;
    r->jitter_us = st.link.jitter_us;
    r->loss_in_q16 = st.link.loss_in_q16;
    r->loss_out_q16 = st.link.loss_out_q16;
    r->bytes_in = st.link.bytes_in_per_s;
    r->bytes_out = st.link.bytes_out_per_s;
    r->interp_us = st.interp_us;
    r->behind_us = st.behind_us;
    r->draws = st.draws;
    r->mispredicted = st.predict.mispredicted;
    r->mispredicted_dead = p->mispredicted_dead;
    r->mispredicted_hurt = p->mispredicted_hurt;
    r->reconciled = st.predict.reconciled;
    r->snapshots = st.snapshots;
    r->snapshot_bytes = st.last_snapshot_bytes;
    /* What the smoothing still hides: the drawn player minus the predicted. */
    if (predicted && zl_client_player(&p->client, now_us, drawn) == ZL_OK)
        r->prediction_error = zl_vec3_length(
            zl_vec3_sub(((const fps_player *)(const void *)drawn)->origin, predicted->origin));
    r->shots = p->shots;
    r->hits_seen = p->hits_seen;
    r->rockets = p->rockets;
    r->extrapolated = st.extrapolated;
    r->undecodable = st.snapshots_undecodable;
    r->events_heard = p->events_heard;
    r->event_bytes = st.events.bits / 8u;
    r->kills_heard = p->kills_heard;
    r->message_bytes = (st.messages.bits_sent + st.messages.bits_received) / 8u;
    r->sealed = st.seal.sealed;
    r->opened = st.seal.opened;
    r->forged = st.seal.forged;
    r->replayed = st.seal.replayed;
    r->commands_made = p->commands_made;
    r->commands_refused = p->commands_refused;
    if (p->cond) {
        const zl_conditioner_stats *out = zl_conditioner_get_stats(p->cond, ZL_CONDITIONER_SEND);
        const zl_conditioner_stats *in = zl_conditioner_get_stats(p->cond, ZL_CONDITIONER_RECEIVE);
        r->cond_lost = out->dropped_loss + in->dropped_loss;
        r->cond_burst_lost = out->dropped_burst + in->dropped_burst;
        r->cond_bursts = out->bursts + in->bursts;
        r->cond_spiked = out->spiked + in->spiked;
        /* One spike freezes both ways: count it once. */
        r->cond_spikes = out->spikes > in->spikes ? out->spikes : in->spikes;
    }
}

void demo_player_leave(demo_player *p, uint64_t now_us)
{
    demo_rec_net r;
    demo_rec_bye bye;
    demo_player_net(p, now_us, &r);
    demo_sink_put(&p->sink, DEMO_REC_NET, &r);
    bye.state = (uint32_t)zl_client_state(&p->client);
    demo_sink_put(&p->sink, DEMO_REC_BYE, &bye);
    zl_client_disconnect(&p->client, now_us);
}
