/* web_sim.c - the page's match: the demo's server, players and bots on a
 * simulated clock, with the switches, views, impacts and net graph the page draws. */
#include <string.h>

#include "demo_local.h"
#include "demo_match.h"
#include "web_sim.h"
#include "zl_loopnet.h"
#include "zl_port.h"

#define FRAME_MS 8u          /* clients run 125 commands a second */
#define SLOTS WEB_CLIENTS    /* the server's slots */

static uint64_t now_us;
static uint64_t rng;         /* the match's random bytes, from the seed */
static zl_platform sim_clock;
static zl_loopnet net;
static zl_loopnet_endpoint server_ep, client_ep[WEB_CLIENTS];
static zl_platform server_hal, client_raw[WEB_CLIENTS], client_hal[WEB_CLIENTS];
static zl_conditioner cond[WEB_CLIENTS];
static demo_game server_game;
static zl_server server;
static demo_player player[WEB_CLIENTS];
static demo_welcome welcome; /* each joining client's gamestate */
static demo_match match;
static demo_stopwatch tick_cost; /* counts the ticks */
/* Time spent in client frames and in the server (receiving, ticking,
 * sending), zl_port_timer_now units: a page's clock is coarse (100 us in
 * most browsers), so costs are sums over many calls, not single timings. */
static uint64_t frame_time, server_time;
static uint32_t frames;
static int who[WEB_CLIENTS + 1]; /* each sink's source: -1 the server, else a client */
static uint8_t on[WEB_SWITCHES];
static int32_t impact[WEB_IMPACTS][WEB_IMPACT_INTS];
static uint32_t impacts;

/* The person: keys held, and the view turned by them. */
static struct {
    int32_t forward, side, turn;
    uint32_t buttons;
    zl_angle yaw;
    /* Without reconciliation the own player is the newest snapshot's, moved
     * by the commands made since it arrived, the older ones forgotten. */
    fps_player naive;
    uint32_t naive_tick;
    int have_naive;
} person;

static uint64_t sim_now(void *ctx)
{
    (void)ctx;
    return now_us;
}

static uint8_t next_byte(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint8_t)(rng >> 32);
}

static int sim_random(void *ctx, void *out, size_t len)
{
    uint8_t *p = (uint8_t *)out;
    (void)ctx;
    while (len--)
        *p++ = next_byte();
    return ZL_OK;
}

static int32_t clamp_axis(int32_t v) { return v > 127 ? 127 : v < -127 ? -127 : v; }

static void person_input(void *ctx, const zl_client *c, int self, uint64_t now, uint16_t msec,
                         int may_fire, zl_usercmd *out)
{
    (void)ctx, (void)c, (void)self, (void)now, (void)may_fire;
    memset(out, 0, sizeof *out);
    out->msec = msec;
    out->seed = next_byte();
    person.yaw = (zl_angle)(person.yaw + person.turn);
    out->yaw = person.yaw;
    out->forward = (int8_t)clamp_axis(person.forward);
    out->side = (int8_t)clamp_axis(person.side);
    out->buttons = (uint16_t)(person.buttons & (FPS_BUTTON_ATTACK | FPS_BUTTON_JUMP | FPS_BUTTON_DUCK));
    if (!person.have_naive)
        return;
    {
        fps_player moved;
        fps_run_command(&person.naive, out, &moved, 0, NULL);
        person.naive = moved;
    }
}

/* A hit the server scored: the box the shooter drew, the rewound one and
 * the target now, kept for the page's impact boxes. */
static void keep_impact(const demo_rec_verdict *v)
{
    const demo_rec_shot *sight = demo_match_sight(&match, v);
    const zl_box *box[3];
    int32_t *out = impact[impacts++ % WEB_IMPACTS];
    zl_box none;
    int b;
    memset(&none, 0, sizeof none);
    box[0] = sight ? &sight->drawn : &none;
    box[1] = &v->rewound;
    box[2] = &v->current;
    out[0] = v->shooter;
    out[1] = v->target;
    for (b = 0; b < 3; b++) {
        out[2 + 4 * b] = box[b]->min.x;
        out[3 + 4 * b] = box[b]->min.y;
        out[4 + 4 * b] = box[b]->max.x;
        out[5 + 4 * b] = box[b]->max.y;
    }
}

static void into_match(void *ctx, int type, const void *rec)
{
    demo_match_take(&match, *(const int *)ctx, type, rec);
    if (type == DEMO_REC_VERDICT && ((const demo_rec_verdict *)rec)->target >= 0)
        keep_impact((const demo_rec_verdict *)rec);
}

static demo_sink sink_for(int index)
{
    demo_sink s;
    s.put = into_match;
    s.ctx = &who[index];
    return s;
}

int web_start(uint32_t seed, int is_person)
{
    zl_server_config sc;
    zl_client_config cc;
    demo_setup setup;
    zl_addr server_addr, any;
    int i, rc;
    now_us = 1000000u;
    rng = 0x9E3779B97F4A7C15ull ^ seed;
    memset(&person, 0, sizeof person);
    memset(impact, 0, sizeof impact);
    impacts = 0;
    demo_stopwatch_reset(&tick_cost);
    frame_time = server_time = 0;
    frames = 0;
    memset(on, 1, sizeof on);
    zl_platform_clock_only(&sim_clock, NULL, sim_now, sim_random);
    zl_loopnet_init(&net, &sim_clock);
    rc = demo_local_server_start(&server, &server_game, &net, &server_ep, &server_hal, SLOTS, now_us,
                                 &sc);
    if (rc != ZL_OK)
        return rc;
    zl_addr_parse(&server_addr, DEMO_LOCAL_SERVER);
    zl_client_config_default(&cc);
    zl_addr_parse(&any, "10.0.1.1:0");
    who[WEB_CLIENTS] = -1;
    for (i = 0; i < WEB_CLIENTS; i++) {
        who[i] = i;
        zl_loopnet_open(&net, &client_ep[i], &any, &client_raw[i]);
        zl_conditioner_init(&cond[i], &client_raw[i], seed * 31u + (uint64_t)i + 1u, &client_hal[i]);
        rc = demo_player_init(&player[i], &cc, &client_hal[i], &cond[i],
                              0x600DF00Du + seed + (uint64_t)i, (uint64_t)seed * 7u + (uint64_t)i + 1u,
                              sink_for(i));
        if (rc != ZL_OK)
            return rc;
        zl_client_connect(&player[i].client, &server_addr, now_us);
    }
    if (is_person) {
        player[0].input = person_input;
        player[0].input_ctx = NULL;
    }
    web_link(100, 10, 10, 0);
    memset(&setup, 0, sizeof setup);
    setup.bots = WEB_CLIENTS;
    setup.tickrate = sc.tick_rate;
    setup.updaterate = cc.settings.updaterate;
    setup.lagcomp = 1;
    demo_match_init(&match, &setup, (uint32_t)(now_us / 1000u));
    for (i = 0; i < WEB_CLIENTS; i++)
        match.bot[i].running = 1;
    return ZL_OK;
}

/* The own state as the newest snapshot holds it, or NULL. */
static const fps_player *own_in_snapshot(const zl_client *c, uint32_t *tick)
{
    const zl_snapshot_frame *f = zl_client_latest(c);
    int slot = zl_client_slot(c);
    if (!f || slot < 0)
        return NULL;
    *tick = f->tick;
    return (const fps_player *)zl_snapshot_frame_state(f, (uint16_t)slot);
}

static void step_client(int i, int frame)
{
    uint64_t t0;
    demo_local_player_step(&player[i], &cond[i], &client_hal[i], now_us);
    if (i == 0) {
        uint32_t tick = 0;
        const fps_player *snap = own_in_snapshot(&player[0].client, &tick);
        if (snap && (!person.have_naive || tick != person.naive_tick)) {
            person.naive = *snap;
            person.naive_tick = tick;
            person.have_naive = 1;
        }
    }
    if (!frame)
        return;
    t0 = zl_port_timer_now();
    demo_player_frame(&player[i], now_us, FRAME_MS, 1);
    frame_time += zl_port_timer_now() - t0;
    frames++;
}

void web_step(uint32_t ms)
{
    demo_sink server_sink = sink_for(WEB_CLIENTS);
    uint64_t end = now_us + (uint64_t)ms * 1000u;
    int i;
    while (now_us < end) {
        uint64_t t0 = zl_port_timer_now();
        int frame;
        now_us += 1000u;
        frame = now_us % (FRAME_MS * 1000u) == 0;
        match.joins += (uint32_t)demo_local_server_step(&server, &server_game, &server_hal, &welcome,
                                                        "zerolag in the browser", &tick_cost,
                                                        now_us, &server_sink);
        server_time += zl_port_timer_now() - t0;
        for (i = 0; i < WEB_CLIENTS; i++)
            step_client(i, frame);
    }
}

void web_input(int32_t forward, int32_t side, int32_t turn, uint32_t buttons)
{
    person.forward = forward;
    person.side = side;
    person.turn = turn;
    person.buttons = buttons;
}

void web_link(uint32_t rtt_ms, uint32_t jitter_ms, uint32_t loss_permille,
              uint32_t burst_permille)
{
    zl_conditioner_settings cs;
    int i;
    memset(&cs, 0, sizeof cs);
    cs.enabled = 1;
    cs.latency_us = rtt_ms * 500u;
    cs.jitter_us = jitter_ms * 1000u;
    cs.loss_ppm = loss_permille * 1000u;
    if (burst_permille > 0) {
        /* Gilbert-Elliott: bursts of about 10 datagrams, half of them lost. */
        cs.burst_enter_ppm = burst_permille * 1000u;
        cs.burst_exit_ppm = 100000u;
        cs.burst_loss_good_ppm = cs.loss_ppm;
        cs.burst_loss_bad_ppm = 500000u;
    }
    for (i = 0; i < WEB_CLIENTS; i++) {
        zl_conditioner_configure(&cond[i], ZL_CONDITIONER_SEND, &cs);
        zl_conditioner_configure(&cond[i], ZL_CONDITIONER_RECEIVE, &cs);
    }
}

void web_switch(int which, int value)
{
    if (which < 0 || which >= WEB_SWITCHES)
        return;
    on[which] = (uint8_t)(value != 0);
    server.config.lag_compensation = on[WEB_LAGCOMP];
}

int web_slots(void) { return SLOTS; }

static void put_player(int32_t *out, const fps_player *p)
{
    memset(out, 0, WEB_VIEW_INTS * sizeof *out);
    if (!p)
        return;
    out[0] = 1;
    out[1] = p->origin.x;
    out[2] = p->origin.y;
    out[3] = p->origin.z;
    out[4] = p->yaw;
    out[5] = p->health;
    out[6] = p->flags;
}

/* The own player as the switches draw it. */
static const fps_player *own(const zl_client *c, int person_view, fps_player *scratch)
{
    uint32_t tick;
    if (!person_view || (on[WEB_PREDICTION] && on[WEB_RECONCILIATION]))
        return zl_client_player(c, now_us, scratch) == ZL_OK ? scratch : NULL;
    if (!on[WEB_PREDICTION])
        return own_in_snapshot(c, &tick);
    return person.have_naive ? &person.naive : NULL;
}

void web_view(int view, int32_t *out)
{
    int s;
    for (s = 0; s < SLOTS; s++) {
        int32_t *o = out + s * WEB_VIEW_INTS;
        const fps_player *p = NULL;
        fps_player scratch;
        if (view == WEB_VIEW_SERVER) {
            p = (const fps_player *)zl_server_player(&server, s);
        } else {
            const zl_client *c = &player[view == WEB_VIEW_PERSON ? 0 : 1].client;
            const zl_snapshot_frame *f = zl_client_latest(c);
            if (s == zl_client_slot(c))
                p = own(c, view == WEB_VIEW_PERSON, &scratch);
            else if (view == WEB_VIEW_PERSON && !on[WEB_INTERPOLATION])
                p = f ? (const fps_player *)zl_snapshot_frame_state(f, (uint16_t)s) : NULL;
            else
                p = (const fps_player *)zl_client_entity(c, s);
        }
        put_player(o, p);
    }
}

int web_impacts(int32_t *out)
{
    uint32_t n = impacts < WEB_IMPACTS ? impacts : WEB_IMPACTS, i;
    for (i = 0; i < n; i++)
        memcpy(out + i * WEB_IMPACT_INTS, impact[(impacts - 1u - i) % WEB_IMPACTS],
               sizeof impact[0]);
    return (int)n;
}

void web_graph(int32_t *out)
{
    demo_rec_net r;
    demo_tally t;
    demo_player_net(&player[0], now_us, &r);
    demo_match_tally(&match, -1, &t);
    out[WEB_G_PING_MS] = (int32_t)(r.rtt_us / 1000u);
    out[WEB_G_JITTER_MS] = (int32_t)(r.jitter_us / 1000u);
    out[WEB_G_LOSS_IN_PERMILLE] = (int32_t)(r.loss_in_q16 * 1000u >> 16);
    out[WEB_G_LOSS_OUT_PERMILLE] = (int32_t)(r.loss_out_q16 * 1000u >> 16);
    out[WEB_G_LERP_MS] = (int32_t)(r.interp_us / 1000u);
    out[WEB_G_SNAPSHOT_BYTES] = (int32_t)r.snapshot_bytes;
    out[WEB_G_SNAPSHOTS] = (int32_t)r.snapshots;
    out[WEB_G_MISPREDICTED] = (int32_t)r.mispredicted;
    out[WEB_G_SHOTS] = (int32_t)t.shots;
    out[WEB_G_JUDGED] = (int32_t)t.judged;
    out[WEB_G_AGREE] = (int32_t)t.agree;
    out[WEB_G_SERVER_HITS] = (int32_t)t.server_hits;
    out[WEB_G_TIME_MS] = (int32_t)(now_us / 1000u);
    out[WEB_G_CONNECTED] = zl_client_state(&player[0].client) == ZL_CLIENT_CONNECTED;
    out[WEB_G_SLOT] = zl_client_slot(&player[0].client);
}

uint32_t web_hash(void)
{
    uint32_t hash = ZL_SCHEMA_HASH_INIT;
    int i;
    for (i = 0; i < WEB_CLIENTS; i++) {
        const void *predicted = zl_client_predicted(&player[i].client);
        int slot = zl_client_slot(&player[i].client);
        if (slot >= 0)
            hash = zl_schema_hash(&fps_player_schema, zl_server_player(&server, slot),
                                  ZL_SCHEMA_ALL, hash);
        if (predicted)
            hash = zl_schema_hash(&fps_player_schema, predicted, ZL_SCHEMA_WIRE, hash);
    }
    return hash;
}

uint32_t web_frame_ns(void) { return frames ? (uint32_t)(frame_time / frames) : 0u; }
uint32_t web_tick_ns(void) { return tick_cost.count ? (uint32_t)(server_time / tick_cost.count) : 0u; }
uint32_t web_frames(void) { return frames; }
uint32_t web_ticks(void) { return tick_cost.count; }

int web_walls(void)
{
    const zl_box *walls;
    return fps_world_walls(&walls);
}

void web_wall(int i, int32_t *out)
{
    const zl_box *walls;
    int n = fps_world_walls(&walls);
    if (i < 0 || i >= n)
        return;
    out[0] = walls[i].min.x;
    out[1] = walls[i].min.y;
    out[2] = walls[i].min.z;
    out[3] = walls[i].max.x;
    out[4] = walls[i].max.y;
    out[5] = walls[i].max.z;
}
