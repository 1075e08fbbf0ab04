/* test_cheats.c - hostile clients against a real server: each cheat is
 * refused or clamped and counted, and an honest client beside it sees nothing. */
#include <string.h>

#include "zl_cookie.h"
#include "zl_print.h"
#include "zl_sim.h"
#include "zl_test.h"

#if ZL_SIM_AVAILABLE

/* How commands are read: zl_usercmd_schema prepared once per run. */
static zl_schema_plan cmd_plan;

#define HONEST 0
#define CHEATER 1
#define FRAME_MS (ZL_SIM_FRAME_US / 1000u)
#define RUN_US 10000000u

static zl_sim *const S = &zl_sim_world;
/* The honest client's count of bad messages once connected: handshake
 * replies to its retries that arrive after it connected land there. */
static uint32_t honest_bad_at_start;

/* ---- bots ---- */

static uint32_t frame_number(void)
{
    return (uint32_t)(zl_test_time_us / ZL_SIM_FRAME_US);
}

/* Walking in circles, looking 60 degrees up: shots go to the sky, so no
 * one is ever hurt and every player's state is exactly predictable. */
static void walk(int i, zl_usercmd *cmd)
{
    uint32_t f = frame_number();
    cmd->msec = (uint16_t)FRAME_MS;
    cmd->forward = 127;
    cmd->side = (int8_t)((f / 64u + (uint32_t)i) % 2u ? 90 : -90);
    cmd->yaw = (zl_angle)(f * (200u + 40u * (uint32_t)i));
    cmd->pitch = ZL_ANGLE_DEG(60);
    cmd->seed = (uint8_t)(f * 31u + (uint32_t)i);
}

/* Presses attack only when its own prediction says the weapon will fire,
 * and reloads an empty magazine: what a fair client does. */
static int honest_bot(zl_sim *sim, int i, zl_usercmd *cmd)
{
    const fps_player *p = (const fps_player *)zl_client_predicted(&sim->c[i].client);
    walk(i, cmd);
    if (!p || (p->flags & (FPS_PF_DEAD | FPS_PF_RELOADING)))
        return 1;
    if (p->clip[p->weapon] == 0)
        cmd->buttons |= FPS_BUTTON_RELOAD;
    else if (p->weapon_time <= cmd->msec && !(p->flags & FPS_PF_ATTACK_HELD))
        cmd->buttons |= FPS_BUTTON_ATTACK;
    return 1;
}

/* Claims twice the time that passes: 32 ms commands every 16 ms. */
static int speed_bot(zl_sim *sim, int i, zl_usercmd *cmd)
{
    (void)sim;
    walk(i, cmd);
    cmd->msec = (uint16_t)(2u * FRAME_MS);
    return 1;
}

/* A fresh press of attack every other command, ammunition or not. */
static int spam_bot(zl_sim *sim, int i, zl_usercmd *cmd)
{
    (void)sim;
    walk(i, cmd);
    if (frame_number() % 2u == 0)
        cmd->buttons |= FPS_BUTTON_ATTACK;
    return 1;
}

/* ---- a hostile client's own datagrams, rewritten as they leave ---- */

enum { REWRITE_OLD, REWRITE_FUTURE, REWRITE_PITCH, FORGE_ACKS, BAD_MSEC, BAD_MOVE };
static int rewrite_mode;

/* The cheater holds its own token's keys, so it opens and reseals its own
 * sealed packets. A packet the cheater is about to send, opened: its header,
 * its full sequence, the payload in clear at plain + ZL_PACKET_HEADER_SIZE
 * (plain: ZL_MAX_PACKET bytes), where a writer puts it; returns the
 * payload's length, or -1 (not one of its connected packets). */
static int open_own(zl_sim *sim, int i, const uint8_t *data, size_t len, zl_packet_header *h,
                    uint64_t *sequence, uint8_t *plain)
{
    const zl_conn *c = &sim->c[i].client.conn;
    /* The packet was the client's last: short fields end near what it
     * sends now. */
    zl_packet_near near;
    int at, payload;
    if (len > ZL_MAX_PACKET)
        return -1;
    near.sequence = (uint16_t)c->send_sequence;
    near.ack = c->link.received_newest;
    memcpy(plain, data, len);
    at = zl_packet_open_aead(plain, len, c->link_id, 1, c->send_sequence, &near, ZL_PROTOCOL_ID,
                             c->send_key, &c->aead, h, sequence, NULL);
    if (at < 0)
        return -1;
    payload = (int)len - at - ZL_PACKET_TAG_SIZE;
    memmove(plain + ZL_PACKET_HEADER_SIZE, plain + at, (size_t)payload);
    return payload;
}

/* Seals payload bytes at packet + ZL_PACKET_HEADER_SIZE as the cheater's
 * packet of full sequence `sequence` and sends it to the server. */
static void seal_and_deliver(zl_sim *sim, int i, uint8_t *packet, int payload,
                             const zl_packet_header *h, uint64_t sequence)
{
    const zl_conn *c = &sim->c[i].client.conn;
    int len = zl_packet_seal_aead(packet, (size_t)payload, h, c->link_id, 1, sequence,
                                  ZL_PROTOCOL_ID, c->send_key, &c->aead);
    ZL_CHECK(len > 0);
    if (len > 0)
        zl_sim_deliver(sim, i, packet, (size_t)len);
}

static void rewrite_command(zl_usercmd *c)
{
    switch (rewrite_mode) {
    case REWRITE_OLD: /* two seconds before what it drew */
        c->render_tick = c->render_tick > 128u ? c->render_tick - 128u : 0u;
        break;
    case REWRITE_FUTURE: /* a second ahead of the server */
        c->render_tick += 64u;
        break;
    default: /* REWRITE_PITCH: looking straight back over its head */
        c->pitch = 0x8000u;
        break;
    }
}

/* Decodes the run a COMMANDS packet carries, changes every command and
 * seals it again with the same header. */
static void rewrite_commands(zl_sim *sim, int i, uint8_t *data, size_t len)
{
    uint8_t out[ZL_MAX_PACKET], plain[ZL_MAX_PACKET];
    zl_usercmd cmds[ZL_CMDSTREAM_MAX_PER_PACKET];
    zl_packet_header h;
    zl_bitreader r;
    zl_bitwriter w;
    zl_commands_header head;
    uint64_t sequence;
    int payload = open_own(sim, i, data, len, &h, &sequence, plain), n, k;
    if (payload < 0 || h.type != ZL_MSG_COMMANDS) {
        zl_sim_deliver(sim, i, data, len);
        return;
    }
    zl_bitreader_init(&r, plain + ZL_PACKET_HEADER_SIZE, (size_t)payload);
    ZL_CHECK_EQ(zl_commands_header_read(&r, &head), ZL_OK);
    n = zl_cmdstream_read(&r, &cmd_plan, zl_predict_newest(&sim->c[i].client.predict), cmds,
                          ZL_CMDSTREAM_MAX_PER_PACKET);
    ZL_CHECK(n >= 0);
    for (k = 0; k < n; k++)
        rewrite_command(&cmds[k]);
    zl_bitwriter_init(&w, out + ZL_PACKET_HEADER_SIZE, ZL_PACKET_MAX_PAYLOAD);
    zl_commands_header_write(&w, &head);
    ZL_CHECK(zl_cmdstream_write(&w, cmds, n < 0 ? 0 : n) >= 0);
    seal_and_deliver(sim, i, out, zl_bitwriter_finish(&w), &h, sequence);
}

/* A run of one command whose `field` holds the raw wire code `code`, every
 * other field zero: only a hostile client sends one, as the writer refuses
 * values out of range. The bits follow zl_schema_write_delta's layout
 * against the zero command: changed, the place of the last changed field
 * among those sent, an "unchanged" bit for each sent field before it, then
 * class 3 (a whole code) and its code. */
static int hostile_run(uint8_t *payload, uint32_t sequence, const char *field, uint32_t code)
{
    const zl_schema *s = &zl_usercmd_schema;
    int index = zl_schema_find(s, field), k;
    uint32_t place = 0, sent = 0;
    const zl_field *f = &s->fields[index];
    zl_commands_header head = {0, 100000u};
    zl_bitwriter w;
    for (k = 0; k < s->count; k++) {
        if (s->fields[k].flags & ZL_LOCAL)
            continue;
        place += k < index;
        sent++;
    }
    zl_bitwriter_init(&w, payload, ZL_PACKET_MAX_PAYLOAD);
    zl_commands_header_write(&w, &head);
    zl_bitwriter_ranged(&w, 1, 0, ZL_CMDSTREAM_MAX_PER_PACKET);
    zl_bitwriter_bits(&w, sequence & 0xFFFFu, 16);
    zl_bitwriter_bool(&w, 1);
    zl_test_write_place(&w, place, sent);
    for (k = 0; k < (int)place; k++)
        zl_bitwriter_bool(&w, 0);
    zl_bitwriter_bits(&w, 3, 2);
    zl_bitwriter_bits(&w, code, zl_bits_required((uint32_t)(f->max - f->min)));
    return zl_bitwriter_finish(&w);
}

static void cheat_outbound(zl_sim *sim, int i, uint8_t *data, size_t len)
{
    uint8_t out[ZL_MAX_PACKET], plain[ZL_MAX_PACKET];
    zl_packet_header h;
    uint64_t sequence;
    int payload;
    if (rewrite_mode <= REWRITE_PITCH) {
        rewrite_commands(sim, i, data, len);
        return;
    }
    payload = open_own(sim, i, data, len, &h, &sequence, plain);
    if (payload < 0) {
        zl_sim_deliver(sim, i, data, len);
        return;
    }
    if (rewrite_mode == FORGE_ACKS) {
        /* Claims every one of 32 snapshots far ahead of any sent. */
        h.ack = (uint16_t)(h.ack + 5000u);
        h.ack_bits = 0xFFFFFFFFu;
        h.short_fields &= (uint8_t)~ZL_PACKET_SHORT_ACK; /* out of reach short */
        memcpy(out + ZL_PACKET_HEADER_SIZE, plain + ZL_PACKET_HEADER_SIZE, (size_t)payload);
        seal_and_deliver(sim, i, out, payload, &h, sequence);
    } else if (h.type == ZL_MSG_COMMANDS) {
        /* msec 256 (code 255 of 1..250) or forward +128 (of -127..127). */
        uint32_t seq = zl_predict_newest(&sim->c[i].client.predict);
        int n = rewrite_mode == BAD_MSEC ? hostile_run(out + ZL_PACKET_HEADER_SIZE, seq, "msec", 255)
                                         : hostile_run(out + ZL_PACKET_HEADER_SIZE, seq, "forward", 255);
        seal_and_deliver(sim, i, out, n, &h, sequence);
    } else {
        zl_sim_deliver(sim, i, data, len);
    }
}

/* ---- the scene ---- */

/* A server and two clients over a fair link (50 ms +- 5 ms each way, no
 * loss): whatever the honest client loses is the cheater's doing. */
static void start(uint64_t seed, zl_sim_bot cheater)
{
    zl_conditioner_settings link;
    memset(&link, 0, sizeof link);
    link.enabled = 1;
    link.latency_us = 50000u;
    link.jitter_us = 5000u;
    zl_sim_init(S, 2, NULL, &link, seed);
    zl_sim_join(S, HONEST, honest_bot);
    zl_sim_join(S, CHEATER, cheater);
    zl_sim_run(S, 1000000u);
    ZL_CHECK(zl_sim_connected(S, HONEST) && zl_sim_connected(S, CHEATER));
    honest_bad_at_start = S->c[HONEST].client.bad_messages;
}

static const fps_refusals *refusals_of(int i)
{
    return &S->game.refusals[zl_client_slot(&S->c[i].client)];
}

/* The honest client: nothing dropped, clamped or refused on its side, and
 * its prediction never wrong. */
static void check_honest(void)
{
    zl_server_client_stats st;
    zl_client_stats cs;
    const fps_refusals *r = refusals_of(HONEST);
    uint32_t drops = 0;
    int k;
    ZL_CHECK_EQ(zl_sim_server_stats(S, HONEST, &st), ZL_OK);
    for (k = 0; k < ZL_PACKET_DROP_COUNT; k++)
        drops += st.link.dropped[k];
    ZL_CHECK_EQ(drops + st.flooded + st.forged_acks + st.bad_messages, 0);
    ZL_CHECK_EQ(st.commands.lost + st.commands.dropped_ahead + st.commands.overflow +
                    st.commands.invalid,
                0);
    ZL_CHECK_EQ(st.choked, 0);
    ZL_CHECK(st.rewinds > 0); /* it did shoot, compensated */
    ZL_CHECK_EQ(st.rewinds_untrusted + st.rewinds_clamped + st.rewinds_refused, 0);
    ZL_CHECK_EQ(r->early_shots + r->dry_fires + r->pitch_clamps, 0);
    zl_client_get_stats(&S->c[HONEST].client, zl_test_time_us, &cs);
    ZL_CHECK(cs.predict.reconciled > 100u);
    ZL_CHECK_EQ(cs.predict.mispredicted, 0);
    ZL_CHECK_EQ(cs.snapshots_undecodable, 0);
    ZL_CHECK_EQ(cs.bad_messages, honest_bad_at_start);
}

static void server_stats(int i, zl_server_client_stats *st)
{
    ZL_CHECK_EQ(zl_sim_server_stats(S, i, st), ZL_OK);
}

/* ---- the cheats ---- */

/* Source's sv_maxusrcmdprocessticks: a client claiming more time than
 * passes runs at real time plus a small budget; the rest is shed. */
static void test_speed_hack(void)
{
    zl_server_client_stats st;
    const zl_sim_ledger *l;
    uint32_t ran_ms, real_ms;
    start(21, speed_bot);
    zl_sim_run(S, RUN_US);
    server_stats(CHEATER, &st);
    l = zl_sim_ledger_of(S, CHEATER);
    ZL_CHECK(l != NULL);
    if (!l)
        return;
    ran_ms = l->executed * 2u * FRAME_MS;
    real_ms = S->c[CHEATER].made * FRAME_MS;
    zl_test_note("claimed %u ms in %u ms: ran %u ms, %u commands shed, %u ms of them waiting",
                 S->c[CHEATER].made * 2u * FRAME_MS, real_ms, ran_ms, st.commands.dropped_ahead,
                 st.commands.depth_us / 1000u);
    ZL_CHECK(ran_ms <= real_ms + ZL_CMDBUF_BUDGET_MS + 2u * FRAME_MS);
    ZL_CHECK(ran_ms >= real_ms * 9u / 10u); /* still real time, not starved */
    ZL_CHECK(st.commands.dropped_ahead > S->c[CHEATER].made / 3u);
    check_honest();
}

/* Counts the server's FIRE events per player, once per tick. */
static void run_counting_shots(uint32_t us, uint32_t shots[2])
{
    uint64_t end = zl_test_time_us + us;
    uint32_t tick = zl_server_tick(&S->server);
    int slot[2];
    slot[0] = zl_client_slot(&S->c[0].client);
    slot[1] = zl_client_slot(&S->c[1].client);
    while (zl_test_time_us < end) {
        const zl_events *ev = zl_server_events(&S->server);
        uint32_t k;
        zl_sim_step(S);
        if (zl_server_tick(&S->server) == tick)
            continue;
        tick = zl_server_tick(&S->server);
        for (k = 0; k < ev->count; k++)
            if (ev->items[k].type == FPS_EV_FIRE)
                shots[ev->items[k].source == slot[1]]++;
    }
}

/* Presses faster than the weapon fires and goes on with an empty
 * magazine: the server's own weapon clock decides, and counts. */
static void test_fire_rate_and_ammo(void)
{
    uint32_t shots[2] = {0, 0}, before, game_ms;
    const fps_refusals *r;
    start(22, spam_bot);
    before = zl_sim_ledger_of(S, CHEATER) ? zl_sim_ledger_of(S, CHEATER)->executed : 0u;
    run_counting_shots(RUN_US + 4000000u, shots); /* two magazines and reloads */
    r = refusals_of(CHEATER);
    game_ms = (zl_sim_ledger_of(S, CHEATER)->executed - before) * FRAME_MS;
    zl_test_note("presses every 32 ms for %u ms of commands: %u shots (rifle: 100 ms apart, "
                 "30 a magazine), %u early presses refused, %u dry fires; honest: %u shots",
                 game_ms, shots[1], r->early_shots, r->dry_fires, shots[0]);
    /* At most one shot per 100 ms of its own commands, plus one at the start. */
    ZL_CHECK(shots[1] <= game_ms / 100u + 1u);
    ZL_CHECK(r->early_shots > shots[1]);
    ZL_CHECK(r->dry_fires >= 2u);
    ZL_CHECK(shots[0] > 20u);
    check_honest();
}

/* Render times older than the trust window, then in the future. */
static void test_backtracking(void)
{
    static const int modes[2] = {REWRITE_OLD, REWRITE_FUTURE};
    zl_server_client_stats st;
    uint32_t shots[2], caught[2];
    int k;
    start(23, honest_bot);
    S->c[CHEATER].outbound = cheat_outbound;
    for (k = 0; k < 2; k++) {
        server_stats(CHEATER, &st);
        shots[k] = st.rewinds;
        caught[k] = k ? st.rewinds_refused : st.rewinds_untrusted;
        rewrite_mode = modes[k];
        zl_sim_run(S, RUN_US / 2u);
        server_stats(CHEATER, &st);
        shots[k] = st.rewinds - shots[k];
        caught[k] = (k ? st.rewinds_refused : st.rewinds_untrusted) - caught[k];
        ZL_CHECK(shots[k] > 10u);
        /* All but the few already sent when the cheat began. */
        ZL_CHECK(caught[k] + 3u >= shots[k]);
    }
    zl_test_note("claimed 2 s back: %u of %u shots outside the trust window (the server's "
                 "estimate used); 1 s ahead: %u of %u refused (traced in the present)",
                 caught[0], shots[0], caught[1], shots[1]);
    ZL_CHECK_EQ(st.rewinds_clamped, 0);
    check_honest();
}

/* Acknowledging snapshots never sent cannot make the server delta against
 * a baseline the client lacks: the acks are ignored (and counted), so the
 * cheater gets full snapshots and decodes every one. */
static void test_forged_acks(void)
{
    zl_server_client_stats st;
    zl_client_stats cs;
    start(24, honest_bot);
    S->c[CHEATER].outbound = cheat_outbound;
    rewrite_mode = FORGE_ACKS;
    zl_sim_run(S, RUN_US / 2u);
    server_stats(CHEATER, &st);
    zl_client_get_stats(&S->c[CHEATER].client, zl_test_time_us, &cs);
    zl_test_note("%u packets with forged acks, %u of our packets acked; the cheater decoded "
                 "%u snapshots, %u not",
                 st.forged_acks, st.link.packets_acked, cs.snapshots, cs.snapshots_undecodable);
    ZL_CHECK(st.forged_acks > 250u);
    ZL_CHECK(st.link.packets_acked < 70u); /* only those of the first second */
    ZL_CHECK(cs.snapshots > 250u);
    ZL_CHECK_EQ(cs.snapshots_undecodable, 0);
    check_honest();
}

/* Values out of range: msec above 250 and a move axis of +128 make the
 * whole packet malformed (and nothing of it runs); a pitch past the limit
 * is clamped by the rules. msec 0 cannot be written at all (the code is
 * msec - 1), and the input buffer counts a decoded one as invalid
 * (test_cmdstream.c, test_push_dedupes_and_counts). */
static void test_out_of_range_commands(void)
{
    static const int modes[2] = {BAD_MSEC, BAD_MOVE};
    zl_server_client_stats st;
    const fps_player *p;
    uint32_t bad, executed;
    int k;
    start(25, honest_bot);
    S->c[CHEATER].outbound = cheat_outbound;
    /* The pitch first: after the malformed runs below, whose commands the
     * server never runs, the cheater's prediction is full and it sends no
     * new ones. */
    rewrite_mode = REWRITE_PITCH;
    zl_sim_run(S, RUN_US / 4u);
    p = (const fps_player *)zl_server_player(&S->server, zl_client_slot(&S->c[CHEATER].client));
    zl_test_note("pitch 180 degrees held: clamped once (%u), the server's pitch %d of 65536 "
                 "(the limit, 89 degrees, is %d)",
                 refusals_of(CHEATER)->pitch_clamps, (int)zl_angle_diff(0, p->pitch),
                 (int)ZL_ANGLE_DEG(89));
    ZL_CHECK_EQ(refusals_of(CHEATER)->pitch_clamps, 1);
    ZL_CHECK(zl_angle_diff(0, p->pitch) == ZL_ANGLE_DEG(89) ||
             zl_angle_diff(0, p->pitch) == -ZL_ANGLE_DEG(89));
    for (k = 0; k < 2; k++) {
        server_stats(CHEATER, &st);
        bad = st.bad_messages;
        executed = st.commands.executed;
        rewrite_mode = modes[k];
        zl_sim_run(S, RUN_US / 4u);
        server_stats(CHEATER, &st);
        zl_test_note("%s: %u packets refused as malformed, %u more commands run",
                     k ? "forward +128" : "msec 256", st.bad_messages - bad,
                     st.commands.executed - executed);
        ZL_CHECK(st.bad_messages - bad > 100u);
        /* Only what was already in the input buffer still runs. */
        ZL_CHECK(st.commands.executed - executed < 16u);
    }
    check_honest();
}

/* ---- floods ---- */

/* The server's replies while nobody is connected, against each request. */
typedef struct reply_sink {
    size_t request_len;
    uint32_t replies, larger;
    uint64_t bytes_in, bytes_out;
} reply_sink;

static int sink_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    reply_sink *k = (reply_sink *)ctx;
    (void)to, (void)data;
    k->replies++;
    k->bytes_out += len;
    k->larger += len > k->request_len;
    return ZL_OK;
}

static zl_addr random_source(zl_test_rng *rng)
{
    uint32_t a = zl_test_rng_u32(rng);
    return zl_addr_ipv4((uint8_t)(a >> 24), (uint8_t)(a >> 16), (uint8_t)(a >> 8), (uint8_t)a,
                        (uint16_t)zl_test_rng_u32(rng));
}

static void flood_send(reply_sink *k, const zl_addr *from, uint8_t *pkt, int len)
{
    k->request_len = (size_t)len;
    k->bytes_in += (uint64_t)len;
    zl_server_receive(&S->server, from, pkt, (size_t)len, zl_test_time_us);
    zl_test_time_us += 10u;
}

/* 100000 REQUESTs a second from spoofed sources, then 100000 RESPONSEs
 * with guessed cookies, against the real server (test_handshake.c has the
 * same against the handshake pieces alone). */
static void test_spoofed_connect_flood(void)
{
    static reply_sink sink;
    uint8_t pkt[ZL_PACKET_HEADER_SIZE + ZL_REQUEST_SIZE];
    zl_platform hal;
    zl_server_config sc;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    uint32_t drops[ZL_SERVER_DROP_COUNT], i, n = 100000u, budget;
    uint64_t t0;
    zl_test_rng rng;
    zl_test_rng_seed(&rng, 26);
    zl_sim_init(S, 1, NULL, NULL, 26);
    memset(&sink, 0, sizeof sink);
    hal = S->server_hal;
    hal.ctx = &sink;
    hal.send = sink_send;
    zl_server_config_default(&sc);
    sc.security = ZL_SECURITY_PLAIN; /* the flood forges plain requests */
    memset(secret, 0x26, sizeof secret);
    ZL_CHECK_EQ(zl_server_init(&S->server, &sc, &S->rules, &hal, secret, zl_test_time_us), ZL_OK);
    t0 = zl_test_time_us;
    for (i = 0; i < n; i++) {
        zl_addr from = random_source(&rng);
        zl_msg_request m;
        m.protocol_id = ZL_PROTOCOL_ID;
        m.nonce = (uint64_t)zl_test_rng_u32(&rng) << 32 | zl_test_rng_u32(&rng);
        zl_client_settings_default(&m.settings);
        zl_msg_write(ZL_MSG_REQUEST, pkt + ZL_PACKET_HEADER_SIZE, ZL_REQUEST_SIZE, &m);
        flood_send(&sink, &from, pkt, zl_conn_seal_unlinked(pkt, ZL_REQUEST_SIZE, ZL_MSG_REQUEST));
    }
    zl_server_get_drops(&S->server, drops);
    budget = sc.ratelimit.global_burst +
             (uint32_t)((zl_test_time_us - t0) * sc.ratelimit.global_rate / 1000000u);
    zl_test_note("%u spoofed requests in %u ms: %u challenges (budget %u), %u unanswered; "
                 "%u bytes in, %u out",
                 n, (uint32_t)((zl_test_time_us - t0) / 1000u), sink.replies, budget,
                 drops[ZL_SERVER_DROP_RATE], (uint32_t)sink.bytes_in, (uint32_t)sink.bytes_out);
    ZL_CHECK(sink.replies <= budget);
    ZL_CHECK_EQ(sink.replies + drops[ZL_SERVER_DROP_RATE], n);
    ZL_CHECK_EQ(sink.larger, 0);
    ZL_CHECK_EQ(zl_server_client_count(&S->server), 0);

    sink.replies = 0;
    for (i = 0; i < n; i++) {
        zl_addr from = random_source(&rng);
        zl_msg_response m;
        m.nonce = (uint64_t)zl_test_rng_u32(&rng) << 32 | zl_test_rng_u32(&rng);
        m.window = zl_cookie_window(zl_test_time_us);
        m.cookie = (uint64_t)zl_test_rng_u32(&rng) << 32 | zl_test_rng_u32(&rng);
        zl_client_settings_default(&m.settings);
        zl_msg_write(ZL_MSG_RESPONSE, pkt + ZL_PACKET_HEADER_SIZE, ZL_REQUEST_SIZE, &m);
        flood_send(&sink, &from, pkt, zl_conn_seal_unlinked(pkt, ZL_REQUEST_SIZE, ZL_MSG_RESPONSE));
    }
    zl_server_get_drops(&S->server, drops);
    zl_test_note("%u guessed cookies: %u refused, %u replies, %d slots taken", n,
                 drops[ZL_SERVER_DROP_COOKIE], sink.replies, zl_server_client_count(&S->server));
    ZL_CHECK_EQ(drops[ZL_SERVER_DROP_COOKIE], n);
    ZL_CHECK_EQ(sink.replies, 0);
    ZL_CHECK_EQ(zl_server_client_count(&S->server), 0);
}

/* The flooder's newest genuine packet in clear, sent again and again as
 * fresh datagrams (new sequence numbers, sealed each time), so the server
 * must open each one. */
static uint8_t flood_packet[ZL_MAX_PACKET];
static int flood_len; /* payload bytes, -1: none yet */
static zl_packet_header flood_header;
static uint64_t flood_sequence;

static void remember_outbound(zl_sim *sim, int i, uint8_t *data, size_t len)
{
    zl_packet_header h;
    uint64_t sequence;
    int payload = open_own(sim, i, data, len, &h, &sequence, flood_packet);
    if (payload >= 0 && h.type == ZL_MSG_COMMANDS) {
        flood_len = payload;
        flood_header = h;
        if (sequence > flood_sequence)
            flood_sequence = sequence;
    }
    zl_sim_deliver(sim, i, data, len);
}

#define FLOOD_CLIENTS 4
#define FLOOD_PER_STEP 10 /* 10000 datagrams a second */

typedef struct flood_run {
    uint32_t snapshots;  /* received by the three honest clients */
    uint32_t received;   /* datagrams the server took */
    uint32_t ticks;
    uint64_t receive_us, update_us;
    zl_server_client_stats flooder;
} flood_run;

static void run_flood(int flood, flood_run *out)
{
    zl_conditioner_settings link;
    int i, k;
    uint64_t end;
    memset(&link, 0, sizeof link);
    link.enabled = 1;
    link.latency_us = 50000u;
    link.jitter_us = 5000u;
    zl_sim_init(S, FLOOD_CLIENTS, NULL, &link, 27);
    for (i = 0; i < FLOOD_CLIENTS; i++)
        zl_sim_join(S, i, honest_bot);
    S->c[CHEATER].outbound = remember_outbound;
    flood_len = -1;
    flood_sequence = 0;
    memset(&flood_header, 0, sizeof flood_header);
    zl_sim_run(S, 1000000u);
    honest_bad_at_start = S->c[HONEST].client.bad_messages;
    zl_sim_time_server(S);
    end = zl_test_time_us + RUN_US;
    while (zl_test_time_us < end) {
        for (k = 0; k < FLOOD_PER_STEP && flood && flood_len >= 0; k++) {
            uint8_t copy[ZL_MAX_PACKET];
            flood_sequence++;
            flood_header.sequence = (uint16_t)flood_sequence;
            memcpy(copy + ZL_PACKET_HEADER_SIZE, flood_packet + ZL_PACKET_HEADER_SIZE,
                   (size_t)flood_len);
            seal_and_deliver(S, CHEATER, copy, flood_len, &flood_header, flood_sequence);
        }
        zl_sim_step(S);
    }
    memset(out, 0, sizeof *out);
    for (i = 0; i < FLOOD_CLIENTS; i++) {
        zl_client_stats cs;
        zl_client_get_stats(&S->c[i].client, zl_test_time_us, &cs);
        if (i != CHEATER)
            out->snapshots += cs.snapshots;
    }
    out->received = S->received;
    out->ticks = S->ticks;
    out->receive_us = S->receive_us;
    out->update_us = S->update_us;
    server_stats(CHEATER, &out->flooder);
}

/* One client sends 10000 datagrams a second: it is cut to its allowance
 * before any payload is read (after the link's replay check, so replays cost
 * it nothing), and everyone else gets what they got in a quiet run. The server's time is measured on the host and reported only. */
static void test_packet_flood(void)
{
    flood_run quiet, loud;
    uint32_t per_s;
    run_flood(0, &quiet);
    run_flood(1, &loud);
    per_s = (uint32_t)((uint64_t)(loud.received - quiet.received) * 1000000u / RUN_US);
    zl_test_note("flood of %u datagrams/s: %u payloads dropped unread, the flooder's link took %u "
                 "(quiet run: %u)",
                 per_s, loud.flooder.flooded, loud.flooder.link.packets_received,
                 quiet.flooder.link.packets_received);
    zl_test_note("honest clients' snapshots: %u quiet, %u flooded", quiet.snapshots,
                 loud.snapshots);
    zl_test_note("server per tick: %u us quiet, %u us flooded; receiving: %u us/s quiet, %u us/s "
                 "flooded (host clock)",
                 (uint32_t)(quiet.update_us / quiet.ticks), (uint32_t)(loud.update_us / loud.ticks),
                 (uint32_t)(quiet.receive_us * 1000000u / RUN_US),
                 (uint32_t)(loud.receive_us * 1000000u / RUN_US));
    ZL_CHECK(per_s >= 9900u);
    ZL_CHECK(loud.flooder.flooded >= per_s * (RUN_US / 1000000u) * 9u / 10u);
    /* No more payloads were read than the allowance: 128 a second, burst
     * 32 (a datagram over it is refused before the link takes it). */
    ZL_CHECK(loud.flooder.link.packets_received <= 128u * (RUN_US / 1000000u + 1u) + 32u);
    ZL_CHECK_EQ(quiet.flooder.flooded, 0);
    ZL_CHECK(10u * loud.snapshots >= 9u * quiet.snapshots);
    ZL_CHECK_EQ(loud.ticks, quiet.ticks);
    check_honest();
}

void zl_suite_cheats(void)
{
    (void)zl_schema_plan_init(&cmd_plan, &zl_usercmd_schema);
    ZL_RUN(test_speed_hack);
    ZL_RUN(test_fire_rate_and_ammo);
    ZL_RUN(test_backtracking);
    ZL_RUN(test_forged_acks);
    ZL_RUN(test_out_of_range_commands);
    ZL_RUN(test_spoofed_connect_flood);
    ZL_RUN(test_packet_flood);
}

#else

void zl_suite_cheats(void)
{
    zl_print("  cheats left out: no room for a server in this image (zl_sim.h)\n");
}

#endif
