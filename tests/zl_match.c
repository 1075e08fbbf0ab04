/* zl_match.c - the match harness: server and clients pumped on the test
 * clock, bots that play, and every shot's sight and verdict recorded. */
#include <string.h>

#include "zl_match.h"
#include "zl_packet.h"
#include "zl_protocol.h"
#include "zl_test.h"

zl_match zl_match_world;
#define m zl_match_world

/* The server's run_command: the game's, counting commands run again. The
 * server names the slot in the event sink's source before each command. */
static void counted_run_command(void *ctx, const void *from, const zl_usercmd *cmd, void *to,
                                int first_prediction, zl_events *events)
{
    (void)ctx;
    if (events && events->source >= 0 && events->source < ZL_MATCH_BOTS) {
        uint32_t *last = &m.last_run[events->source];
        m.executed++;
        if (cmd->sequence - *last - 1u >= 0x80000000u)
            m.repeats++; /* not newer than the newest run */
        else
            *last = cmd->sequence;
    }
    m.client_rules.run_command(m.client_rules.ctx, from, cmd, to, first_prediction, events);
}

static void keep_verdicts(void)
{
    const zl_events *ev = zl_server_events(&m.server);
    uint32_t k, kept;
    const zl_server_shot *shot = zl_server_shots(&m.server, &kept, NULL);
    for (k = 0; k < ev->count; k++)
        m.server_hits +=
            (uint32_t)(ev->items[k].type == m.bots->hit_event && ev->items[k].target >= 0);
    for (k = 0; k < kept; k++) {
        const zl_lagcomp_hit *h = &shot[k].hit;
        /* The present box is empty when the target has died since. */
        int boxes = h->rewound.min.z < h->rewound.max.z;
        m.traces++;
        m.traced_hits += (uint32_t)(h->target >= 0);
        m.bad_records += (uint32_t)(!zl_server_connected(&m.server, shot[k].shooter) ||
                                    h->shooter != shot[k].shooter || (h->target >= 0 && !boxes));
        if (m.verdicts < ZL_MATCH_SHOTS) {
            zl_match_verdict *v = &m.verdict[m.verdicts++];
            v->shooter = shot[k].shooter;
            v->sequence = shot[k].sequence;
            v->target = h->target;
            v->flags = h->when.flags;
        } else {
            m.unkept++;
        }
    }
}

/* What a client receives of an event, hashed. */
static uint32_t event_key(const zl_event *ev)
{
    uint32_t h = zl_schema_hash(m.client_rules.event_schema, ev, ZL_SCHEMA_WIRE,
                                ZL_SCHEMA_HASH_INIT);
    h = (h ^ ev->tick) * 16777619u;
    return (h ^ (uint32_t)ev->source) * 16777619u;
}

/* The events the last tick added to the server's log. */
static void keep_logged_events(void)
{
    const zl_event_log *log = &m.server.event_log;
    for (; m.logged_next != log->next; m.logged_next++) {
        const zl_event_entry *e = &log->entry[m.logged_next & (ZL_EVENT_LOG - 1u)];
        zl_match_event *out;
        zl_bitreader r;
        zl_event ev;
        if (m.logged_count == ZL_MATCH_EVENTS) {
            m.events_unkept++;
            continue;
        }
        memset(&ev, 0, sizeof ev);
        zl_bitreader_init(&r, e->body, sizeof e->body);
        ZL_CHECK_EQ(zl_schema_read_delta(m.client_rules.event_schema, &r, NULL, &ev,
                                         ZL_SCHEMA_WIRE),
                    ZL_OK);
        ev.tick = e->tick;
        ev.source = e->source;
        out = &m.logged[m.logged_count++];
        out->key = event_key(&ev);
        out->tick = e->tick;
        out->source = e->source;
        out->predicted = e->predicted;
        out->taken = 0;
    }
}

/* Client i's events due this frame. */
static void take_events(int i)
{
    zl_event ev[16];
    const zl_client *c = &m.client[i];
    int n, k;
    while ((n = zl_client_events(&m.client[i], ev, (int)ZL_COUNTOF(ev))) > 0) {
        for (k = 0; k < n; k++) {
            uint64_t at = (uint64_t)ev[k].tick * c->tick_us;
            zl_match_event *out;
            if (ev[k].source != zl_client_slot(c)) {
                m.heard_others++;
                m.heard_early += (uint32_t)(at > c->render_us);
                m.heard_within_frame += (uint32_t)(at <= c->render_us &&
                                                   c->render_us - at <= ZL_MATCH_FRAME_US);
            }
            if (m.heard_count[i] == ZL_MATCH_EVENTS) {
                m.events_unkept++;
                continue;
            }
            out = &m.heard[i][m.heard_count[i]++];
            out->key = event_key(&ev[k]);
            out->tick = ev[k].tick;
            out->source = ev[k].source;
            out->predicted = 0;
            out->taken = 0;
        }
    }
}

/* The racing attacker (zl_match_setup.race): a copy of bot 0's datagram
 * from its own address first, and what the server sent it passed on. */
static void race_ahead(const uint8_t *buf, int n)
{
    uint8_t copy[ZL_MAX_PACKET];
    zl_addr racer = zl_loopnet_address(&m.racer_ep), from;
    int k;
    memcpy(copy, buf, (size_t)n);
    zl_server_receive(&m.server, &racer, copy, (size_t)n, zl_test_time_us);
    m.raced++;
    while ((k = m.racer_hal.receive(m.racer_hal.ctx, &from, copy, sizeof copy)) >= 0) {
        zl_client_receive(&m.client[0], &m.server_addr, copy, (size_t)k, zl_test_time_us);
        m.relayed++;
    }
}

/* zl_match.junk_ahead datagrams of junk carrying the clear connection id
 * of bot 0's sealed datagram buf, each from another port. */
static void junk_ahead(const uint8_t *buf)
{
    uint8_t junk[120];
    int k;
    for (k = 0; k < m.junk_ahead; k++) {
        zl_addr from = zl_addr_ipv4(10, 9, 9, 9, (uint16_t)(40000u + m.junked % 64u));
        memset(junk, (int)(m.junked * 131u), sizeof junk);
        memcpy(junk, buf, 4);
        junk[4] = ZL_MSG_COMMANDS;
        zl_server_receive(&m.server, &from, junk, sizeof junk, zl_test_time_us);
        m.junked++;
    }
}

static void pump_server(void)
{
    uint8_t buf[ZL_MAX_PACKET], copy[ZL_MAX_PACKET];
    zl_addr from, victim = zl_loopnet_address(&m.client_ep[0]);
    int n, k;
    while ((n = m.server_hal.receive(m.server_hal.ctx, &from, buf, sizeof buf)) >= 0) {
        int replay = m.replays > 0 && zl_addr_equal(&from, &victim);
        if (replay)
            memcpy(copy, buf, (size_t)n); /* as captured, before decryption */
        if (m.race && zl_addr_equal(&from, &victim) &&
            zl_client_state(&m.client[0]) == ZL_CLIENT_CONNECTED)
            race_ahead(buf, n);
        if (m.junk_ahead && zl_addr_equal(&from, &victim) && n >= 4)
            junk_ahead(buf);
        zl_server_receive(&m.server, &from, buf, (size_t)n, zl_test_time_us);
        for (k = 0; replay && k < m.replays; k++) {
            memcpy(buf, copy, (size_t)n);
            zl_server_receive(&m.server, &from, buf, (size_t)n, zl_test_time_us);
            m.replayed++;
        }
    }
    if (zl_server_update(&m.server, zl_test_time_us) > 0) {
        keep_verdicts();
        if (m.client_rules.event_schema)
            keep_logged_events();
    }
}

/* Client i's FPS player, NULL before it has one or in another game. */
static const fps_player *fps_me(int i)
{
    return m.bots->rules ? NULL : (const fps_player *)zl_client_predicted(&m.client[i]);
}

/* Takes what arrived for client i, counting mispredictions that neither
 * death nor damage explain (those only the server decides). */
static void pump_client(int i)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    int n;
    zl_conditioner_pump(&m.cond[i]);
    while ((n = m.client_hal[i].receive(m.client_hal[i].ctx, &from, buf, sizeof buf)) >= 0) {
        const fps_player *me = fps_me(i);
        uint8_t health = me ? me->health : 0, dead = me ? (me->flags & FPS_PF_DEAD) : 0;
        uint32_t before = me ? zl_predict_get_stats(&m.client[i].predict)->mispredicted : 0;
        zl_client_receive(&m.client[i], &from, buf, (size_t)n, zl_test_time_us);
        me = fps_me(i);
        if (me && before != zl_predict_get_stats(&m.client[i].predict)->mispredicted && !dead &&
            !(me->flags & FPS_PF_DEAD) && me->health == health) {
            m.mispredicted_moving++;
            m.mispredicted_moving_bot[i]++;
        }
    }
    zl_client_update(&m.client[i], zl_test_time_us);
}

/* Yaw and pitch from the eye of `me` to the head of `it` (slot). */
static void aim_at_head(const fps_player *me, const fps_player *it, int slot, zl_usercmd *c)
{
    zl_hitbox hb[2];
    zl_vec3 eye = fps_player_eye(me), head, d;
    if (fps_player_hitboxes(it, slot, hb, 2) < 2)
        return;
    head.x = hb[1].box.min.x + (hb[1].box.max.x - hb[1].box.min.x) / 2;
    head.y = hb[1].box.min.y + (hb[1].box.max.y - hb[1].box.min.y) / 2;
    head.z = hb[1].box.min.z + (hb[1].box.max.z - hb[1].box.min.z) / 2;
    d = zl_vec3_sub(head, eye);
    c->yaw = zl_atan2(d.y, d.x);
    d.z = 0;
    c->pitch = zl_atan2(head.z - eye.z, zl_vec3_length(d));
}

/* Bot input. Depends only on the bot, the frame and what it draws. */
static void bot_command(int i, zl_usercmd *c)
{
    uint32_t f = m.frame;
    const fps_player *me = (const fps_player *)zl_client_predicted(&m.client[i]);
    int target = zl_client_slot(&m.client[(i + 1) % ZL_MATCH_BOTS]);
    const fps_player *it = (const fps_player *)zl_client_entity(&m.client[i], target);
    memset(c, 0, sizeof *c);
    c->msec = (uint16_t)(ZL_MATCH_FRAME_US / 1000u);
    c->seed = (uint8_t)(f * 31u + (uint32_t)i);
    if (m.style == ZL_MATCH_DUEL) {
        /* Direction changes every 19 to 50 frames (150 to 400 ms), a
         * different rhythm per bot. */
        uint32_t period = 19u + (uint32_t)i * 9u + (f / 200u) % 3u * 4u;
        c->side = (int8_t)((f / period) % 2u ? 127 : -127);
        c->forward = (int8_t)((f / (period * 3u)) % 3u == 0 ? 60 : 0);
        c->buttons = (uint16_t)((f + (uint32_t)i * 13u) % 89u == 0 ? FPS_BUTTON_JUMP : 0);
        if ((f + (uint32_t)i * 29u) % 160u < 40u)
            c->buttons |= FPS_BUTTON_DUCK;
        c->yaw = (zl_angle)(f * 97u);
        if (me && it) {
            aim_at_head(me, it, target, c);
            if (m.firing && f % 3u == (uint32_t)i % 3u)
                c->buttons |= FPS_BUTTON_ATTACK;
        }
        return;
    }
    c->forward = 127;
    c->side = (int8_t)((f / 64u + (uint32_t)i) % 2u ? 90 : -90);
    c->yaw = (zl_angle)(f * (uint32_t)(180 + 40 * i));
    c->buttons = (uint16_t)(f % 97u == (uint32_t)i * 7u ? FPS_BUTTON_JUMP : 0);
    if (m.firing && me && it) {
        /* Aim level at the next bot where this client draws it. */
        c->yaw = zl_atan2(it->origin.y - me->origin.y, it->origin.x - me->origin.x);
        c->forward = 0;
        if (f % 5u == 0)
            c->buttons |= FPS_BUTTON_ATTACK;
    }
}

/* The player slot the shot meets among the others as client i draws them
 * (-1: none). */
static int32_t client_sight(int i, const zl_event *shot)
{
    zl_hitbox boxes[2 * ZL_MATCH_BOTS];
    zl_trace tr;
    zl_vec3 end;
    int j, n = 0;
    for (j = 0; j < ZL_MATCH_BOTS; j++) {
        int slot = zl_client_slot(&m.client[j]);
        const fps_player *p = (const fps_player *)zl_client_entity(&m.client[i], slot);
        if (j != i && p)
            n += fps_player_hitboxes(p, slot, boxes + n, 2);
    }
    end = zl_vec3_add(shot->origin, zl_vec3_scale(shot->dir, FPS_HITSCAN_RANGE));
    return fps_trace(&shot->origin, &end, boxes, n, &tr) > 0 ? tr.entity : -1;
}

static const zl_match_game fps_bots = {NULL, bot_command, client_sight, FPS_EV_FIRE, FPS_EV_HIT};

static void client_frame(int i)
{
    zl_event store[FPS_MAX_EVENTS_PER_COMMAND];
    zl_events events;
    zl_usercmd c;
    uint32_t k;
    int rc;
    zl_client_frame(&m.client[i], zl_test_time_us);
    if (m.client_rules.event_schema)
        take_events(i);
    m.bots->command(i, &c);
    zl_events_init(&events, store, FPS_MAX_EVENTS_PER_COMMAND);
    rc = zl_client_command(&m.client[i], &c, &events);
    m.refused_full[i] += (uint32_t)(rc == ZL_ERR_FULL);
    if (rc != ZL_OK)
        return;
    m.made[i]++;
    for (k = 0; k < events.count; k++) {
        zl_match_shot s;
        if (events.items[k].type != m.bots->fire_event)
            continue;
        m.fire_events++;
        s.shooter = zl_client_slot(&m.client[i]);
        s.sequence = zl_predict_newest(&m.client[i].predict);
        s.target = m.bots->sight(i, &events.items[k]);
        /* Whether any player was drawn past its newest sample. */
        s.extrapolated = m.client[i].pick.mode == ZL_PICK_EXTRAPOLATED;
        m.client_hits += (uint32_t)(s.target >= 0);
        if (m.shots < ZL_MATCH_SHOTS)
            m.shot[m.shots++] = s;
        else
            m.unkept++;
    }
}

void zl_match_run(uint32_t us)
{
    uint32_t t;
    int i;
    for (t = 0; t < us; t += 1000u) {
        zl_test_time_us += 1000u;
        pump_server();
        for (i = 0; i < ZL_MATCH_BOTS; i++) {
            pump_client(i);
            if (zl_test_time_us % ZL_MATCH_FRAME_US == 0)
                client_frame(i);
        }
        if (zl_test_time_us % ZL_MATCH_FRAME_US == 0)
            m.frame++;
    }
}

/* The match's backend: the key it shares with the server, and the Unix
 * time the server starts at. */
const uint8_t zl_match_key[ZL_TOKEN_KEY_SIZE] = {
    0x6b, 0x65, 0x79, 0x20, 0x6f, 0x66, 0x20, 0x74, 0x68, 0x65, 0x20, 0x6d, 0x61, 0x74, 0x63, 0x68,
    0x27, 0x73, 0x20, 0x62, 0x61, 0x63, 0x6b, 0x65, 0x6e, 0x64, 0x2c, 0x20, 0x33, 0x32, 0x20, 0x42};
/* A connect token for bot i: fresh-looking keys and nonce made from i. */
void zl_match_mint(int i, zl_connect_token *t)
{
    zl_token_grant g;
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    memset(&g, 0, sizeof g);
    g.client_id = 1000u + (uint64_t)i;
    g.timeout_s = 5;
    g.address_count = 1;
    g.addresses[0] = m.server_addr;
    memset(g.client_key, 0x10 + i, sizeof g.client_key);
    memset(g.server_key, 0x20 + i, sizeof g.server_key);
    memset(g.user_data, 'a' + i, sizeof g.user_data);
    memset(nonce, 0x30 + i, sizeof nonce);
    ZL_CHECK_EQ(zl_token_mint(t, &g, ZL_MATCH_UNIX_S, ZL_MATCH_UNIX_S + 600u, nonce, zl_match_key),
                ZL_OK);
}

/* The server's and the clients' sends, counting the bytes handed to the
 * network below them. */
static int server_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    const uint8_t *bytes = (const uint8_t *)data;
    /* The server's sealed packets start with their type byte (no clear id). */
    size_t type_at = m.server.config.security == ZL_SECURITY_TOKENS ? 0 : 4;
    int i;
    m.server_bytes += (uint32_t)len;
    for (i = 0; i < ZL_MATCH_BOTS; i++) {
        zl_addr bot = zl_loopnet_address(&m.client_ep[i]);
        if (len > ZL_PACKET_HEADER_SIZE &&
            (bytes[type_at] & (ZL_PACKET_TYPE_COUNT - 1)) == ZL_MSG_SNAPSHOT &&
            zl_addr_equal(to, &bot)) {
            m.snapshot_bytes[i] = (uint32_t)len;
            m.snapshot_type_byte[i] = bytes[type_at];
        }
    }
    return m.server_net.send(ctx, to, data, len);
}

static int client_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    int i;
    for (i = 0; i < ZL_MATCH_BOTS && m.client_net[i].ctx != ctx; i++)
        ;
    ZL_ASSERT(i < ZL_MATCH_BOTS);
    m.client_bytes[i] += (uint32_t)len;
    return m.client_net[i].send(ctx, to, data, len);
}

void zl_match_start(const zl_match_setup *setup)
{
    zl_server_config sc;
    zl_client_config cc;
    zl_conditioner_settings cs;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    zl_addr any;
    int i;
    memset(&m, 0, sizeof m);
    zl_test_time_us = 1000000u;
    zl_test_fake_platform(&m.clock);
    zl_loopnet_init(&m.net, &m.clock);
    zl_addr_parse(&m.server_addr, "10.0.0.1:27015");
    ZL_CHECK_EQ(zl_loopnet_open(&m.net, &m.server_ep, &m.server_addr, &m.server_hal), ZL_OK);
    m.server_net = m.server_hal;
    m.server_hal.send = server_send;
    m.bots = setup->game ? setup->game : &fps_bots;
    if (m.bots->rules) {
        m.client_rules = *m.bots->rules;
    } else {
        fps_game_init(&m.game);
        m.client_rules = fps_game_interface(&m.game);
    }
    m.rules = m.client_rules;
    m.rules.run_command = counted_run_command;
    zl_server_config_default(&sc);
    sc.max_clients = ZL_MATCH_BOTS;
    sc.lag_compensation = (uint8_t)setup->lag_compensation;
    if (setup->maxunlag_us)
        sc.lagcomp.maxunlag_us = setup->maxunlag_us;
    sc.security = (uint8_t)(setup->plain ? ZL_SECURITY_PLAIN : ZL_SECURITY_TOKENS);
    memcpy(sc.private_key, zl_match_key, sizeof zl_match_key);
    sc.public_address_count = 1;
    sc.public_addresses[0] = m.server_addr;
    sc.unix_time_s = ZL_MATCH_UNIX_S;
    memset(secret, 0x33, sizeof secret);
    ZL_CHECK_EQ(zl_server_init(&m.server, &sc, &m.rules, &m.server_hal, secret, zl_test_time_us),
                ZL_OK);
    memset(&cs, 0, sizeof cs);
    cs.enabled = 1;
    cs.latency_us = setup->rtt_us / 2u;
    cs.jitter_us = setup->jitter_us;
    cs.loss_ppm = setup->loss_ppm;
    zl_client_config_default(&cc);
    zl_addr_parse(&any, "10.0.1.1:0");
    for (i = 0; i < ZL_MATCH_BOTS; i++) {
        ZL_CHECK_EQ(zl_loopnet_open(&m.net, &m.client_ep[i], &any, &m.client_raw[i]), ZL_OK);
        zl_conditioner_init(&m.cond[i], &m.client_raw[i], (uint64_t)i + 1u, &m.client_hal[i]);
        zl_conditioner_configure(&m.cond[i], ZL_CONDITIONER_SEND, &cs);
        zl_conditioner_configure(&m.cond[i], ZL_CONDITIONER_RECEIVE, &cs);
        m.client_net[i] = m.client_hal[i];
        m.client_hal[i].send = client_send;
        ZL_CHECK_EQ(zl_client_init(&m.client[i], &cc, &m.client_rules, &m.client_hal[i],
                                   (uint64_t)0x12345678u << 32 | (uint64_t)i),
                    ZL_OK);
        if (setup->plain) {
            zl_client_connect(&m.client[i], &m.server_addr, zl_test_time_us);
        } else {
            zl_match_mint(i, &m.token[i]);
            ZL_CHECK_EQ(zl_client_connect_token(&m.client[i], &m.token[i], zl_test_time_us), ZL_OK);
        }
    }
    m.style = setup->style;
    m.firing = setup->firing;
    m.replays = setup->replays;
    m.race = setup->race;
    if (m.race) {
        zl_addr racer = zl_addr_ipv4(10, 6, 6, 6, 6666);
        ZL_CHECK_EQ(zl_loopnet_open(&m.net, &m.racer_ep, &racer, &m.racer_hal), ZL_OK);
    }
}

int zl_match_connected(void)
{
    int i, n = 0;
    for (i = 0; i < ZL_MATCH_BOTS; i++)
        n += zl_client_state(&m.client[i]) == ZL_CLIENT_CONNECTED;
    return n;
}

void zl_match_tally_shots(uint32_t from, zl_match_tally *out)
{
    uint32_t i, k;
    memset(out, 0, sizeof *out);
    for (i = from; i < m.shots; i++) {
        const zl_match_shot *s = &m.shot[i];
        out->shots++;
        for (k = 0; k < m.verdicts; k++) {
            const zl_match_verdict *v = &m.verdict[k];
            int clamped;
            if (v->shooter != s->shooter || v->sequence != s->sequence)
                continue;
            clamped = (v->flags & ZL_LAGCOMP_CLAMPED) != 0;
            out->judged++;
            out->hits += (uint32_t)(s->target >= 0);
            out->extrapolated += s->extrapolated;
            out->clamped += (uint32_t)clamped;
            if (v->target == s->target && !clamped)
                out->agree++;
            else
                out->disagree_extrapolated += s->extrapolated;
            break;
        }
    }
}

/* ---- A recorded match ---- */

typedef struct record_buffer {
    uint8_t *data;
    uint32_t len, cap;
} record_buffer;

static int record_append(void *ctx, const void *bytes, size_t len)
{
    record_buffer *b = (record_buffer *)ctx;
    if (len > b->cap - b->len)
        return ZL_ERR_OVERFLOW;
    memcpy(b->data + b->len, bytes, len);
    b->len += (uint32_t)len;
    return ZL_OK;
}

static zl_record match_record;

uint32_t zl_match_record(uint32_t us, uint32_t change_us, uint8_t *buf, uint32_t cap,
                         uint32_t *hash)
{
    static const uint8_t config[] = {'f', 'p', 's'};
    record_buffer b;
    zl_match_setup s;
    int size;
    memset(&s, 0, sizeof s);
    s.rtt_us = 100000u;
    s.jitter_us = 20000u;
    s.loss_ppm = 20000u;
    s.lag_compensation = 1;
    s.style = ZL_MATCH_DUEL;
    s.firing = 1;
    zl_match_start(&s);
    b.data = buf;
    b.len = 0;
    b.cap = cap;
    ZL_CHECK_EQ(zl_server_record_start(&m.server, &match_record, record_append, &b, config,
                                       sizeof config),
                ZL_OK);
    if (change_us && change_us < us) {
        zl_match_run(change_us);
        fps_game_init(&m.game); /* the application reloads its game */
        ZL_CHECK(zl_server_change_match(&m.server, ZL_MATCH_NEXT_ID, zl_test_time_us) > 0);
        us -= change_us;
    }
    zl_match_run(us);
    *hash = zl_server_match_hash(&m.server);
    size = zl_server_record_stop(&m.server);
    ZL_CHECK_EQ(size, (int)b.len);
    return b.len;
}
