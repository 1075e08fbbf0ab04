/* bench_match.c - one match for the server benchmarks: bots that connect
 * through the real handshake and send commands, and a timed server tick. */
#include "bench_match.h"

#include <string.h>

#include "zl_bench.h"
#include "zl_server_blocks.h"

#define UPDATE_RATE 64u
/* Bots claim they drew the others 100 ms back: the default interpolation. */
#define INTERP_TICKS 13u
#define CMD_BACKUP 16u  /* zl_client's default */
#define FIRE_PERIOD 10u /* each bot pulls the trigger one tick in ten */
/* Play before anything is timed: a full rewind history (a second at
 * 128 Hz), and every client acknowledging delta snapshots. */
#define WARMUP_TICKS ZL_LAGCOMP_TICKS
#define BASE_PORT 20000u

/* The server's only way out: a copy into the addressee's packet, found by
 * port in constant time. (zl_loopnet finds an endpoint by scanning them
 * all: with 257 endpoints that harness work, inside the timed region,
 * would grow with players squared. A real socket's send costs more than
 * either and is not counted.) */
static int deliver(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    bench_match *b = (bench_match *)ctx;
    uint32_t k = (uint32_t)to->port - BASE_PORT;
    bench_bot *t;
    if (k >= (uint32_t)b->players || !zl_addr_equal(to, &b->bots[k].addr))
        return ZL_OK;
    t = &b->bots[k];
    if (t->len && (int)k < b->downloading && !b->len2[k]) {
        memcpy(b->packet2[k], data, len);
        b->len2[k] = (uint16_t)len;
        return ZL_OK;
    }
    if (t->len) {
        b->overflow++;
        return ZL_OK;
    }
    memcpy(t->packet, data, len);
    t->len = (uint16_t)len;
    return ZL_OK;
}

/* Bot k's command `seq`: running and turning, strafing one way then the
 * other, a jump now and then, the trigger one tick in ten (the bots take
 * turns, so a tenth of them fire each tick). They look 45 degrees up and
 * hold fire while someone stands close enough to be hit (hold_fire), so
 * every shot is rewound and traced, yet nobody dies and stops moving. */
static void make_command(const bench_match *b, uint32_t k, uint32_t seq, zl_usercmd *c)
{
    uint32_t tick = b->bots[k].first_tick + seq - 1u;
    memset(c, 0, sizeof *c);
    c->sequence = seq;
    /* 7 and 8 ms commands, 125 ms every 16: exactly one per 128 Hz tick. */
    c->msec = (uint16_t)(seq * 125u / 16u - (seq - 1u) * 125u / 16u);
    c->forward = 127;
    c->side = (int8_t)(((seq / 128u + k) & 1u) ? 90 : -90);
    c->yaw = (zl_angle)(seq * (150u + 20u * (k % 8u)) + k * 2500u);
    c->pitch = ZL_ANGLE_DEG(45);
    if ((seq + k * 7u) % FIRE_PERIOD == 0 && !(b->bots[k].hold_fire >> (seq % 32u) & 1u))
        c->buttons |= FPS_BUTTON_ATTACK;
    if (seq % 97u == k % 97u)
        c->buttons |= FPS_BUTTON_JUMP;
    c->seed = (uint8_t)(seq * 31u + k);
    c->render_tick = tick > INTERP_TICKS ? tick - INTERP_TICKS : 0;
    c->render_span = 1;
    c->render_frac = (uint16_t)(seq * 40503u);
}

/* 1 when a player other than k stands so close to k (bots crowd at the
 * six spawn points and never collide) that a shot up into the air would
 * still meet its box. The bench peeks at the server's states for this. */
static int crowded(const bench_match *b, int k)
{
    const fps_player *me = (const fps_player *)zl_server_player(&b->server, k);
    const zl_fx reach = ZL_FX_INT(3 * FPS_HALF_WIDTH);
    int j;
    for (j = 0; me && j < b->players; j++) {
        const fps_player *p = (const fps_player *)zl_server_player(&b->server, j);
        if (j != k && p && p->origin.x - me->origin.x < reach &&
            me->origin.x - p->origin.x < reach && p->origin.y - me->origin.y < reach &&
            me->origin.y - p->origin.y < reach)
            return 1;
    }
    return 0;
}

/* Client work before a tick: each bot sends its new command with those
 * the server has not run yet, as zl_client does. */
static void bots_send(bench_match *b)
{
    zl_usercmd run[CMD_BACKUP];
    uint32_t k;
    for (k = 0; k < (uint32_t)b->players; k++) {
        bench_bot *t = &b->bots[k];
        zl_bitwriter w;
        zl_commands_header head = {0, 100000u};
        uint32_t first, seq;
        int n = 0, bytes;
        t->newest++;
        t->hold_fire &= ~(1u << (t->newest % 32u));
        if ((t->newest + k * 7u) % FIRE_PERIOD == 0 && crowded(b, (int)k))
            t->hold_fire |= 1u << (t->newest % 32u);
        first = t->newest - t->executed > CMD_BACKUP ? t->newest + 1u - CMD_BACKUP
                                                     : t->executed + 1u;
        for (seq = first; seq <= t->newest; seq++)
            make_command(b, k, seq, &run[n++]);
        zl_bitwriter_init(&w, t->packet + ZL_PACKET_HEADER_SIZE, ZL_PACKET_MAX_PAYLOAD);
        zl_commands_header_write(&w, &head); /* no full snapshot wanted */
        zl_cmdstream_write(&w, run, n);
        bytes = zl_bitwriter_finish(&w);
        if (b->sealed) {
            zl_packet_header h;
            zl_link_next_header(&t->link, ZL_MSG_COMMANDS, &h);
            bytes = zl_packet_seal_aead(t->packet, (size_t)bytes, &h, t->link_id, 1,
                                        t->send_sequence++, ZL_PROTOCOL_ID, t->client_key,
                                        &b->aead);
            if (bytes > 0)
                zl_link_record_sent(&t->link, &h, (size_t)bytes, b->now_us);
        } else {
            bytes = zl_link_send(&t->link, ZL_MSG_COMMANDS, t->packet, (size_t)bytes, t->link_id,
                                 b->now_us);
        }
        t->len = (uint16_t)(bytes > 0 ? bytes : 0);
    }
}

/* One datagram from the server to bot t: acks through the link, and from
 * a snapshot's header (server tick, newest command run) what need not be
 * sent again; a block's chunks are only acknowledged (the link does it),
 * the snapshot beside them read like any. */
static void bot_receive(bench_match *b, bench_bot *t, uint8_t *packet, size_t len)
{
    zl_packet_header h;
    uint8_t type;
    int at;
    if (b->drop_every && t - b->bots < b->downloading &&
        ++b->received_datagrams % b->drop_every == 0)
        return;
    if (b->sealed) {
        uint64_t sequence;
        zl_packet_near near;
        near = zl_link_near(&t->link);
        at = zl_packet_open_aead(packet, len, t->link_id, 0, t->receive_newest, &near,
                                 ZL_PROTOCOL_ID,
                                 t->server_key, &b->aead, &h, &sequence, NULL);
        if (at >= 0 && sequence > t->receive_newest)
            t->receive_newest = sequence;
        if (at >= 0 && zl_link_accept(&t->link, &h, len, b->now_us, NULL) != ZL_OK)
            at = -1;
    } else {
        at = zl_link_receive(&t->link, packet, len, t->link_id, b->now_us, &h, NULL);
    }
    type = h.type;
    if (at >= 0 && type == ZL_MSG_BLOCK) {
        int inner = zl_blocks_peek(packet + at, len - (size_t)at, &type);
        at = inner < 0 ? inner : at + inner;
    }
    if (at >= 0 && type == ZL_MSG_SNAPSHOT) {
        /* The newest packet only: a delta's command widens against the
         * one read before, never a later one. */
        uint32_t executed = t->executed;
        if (t->link.received_newest == h.sequence &&
            zl_snapshot_message_executed(packet + at, len - (size_t)at, &executed) == ZL_OK &&
            executed <= t->newest)
            t->executed = executed;
        b->snapshots_last++;
    }
}

/* Client work after a tick: what the server sent each bot. */
static void bots_receive(bench_match *b)
{
    uint32_t k;
    b->snapshots_last = 0;
    for (k = 0; k < (uint32_t)b->players; k++) {
        bench_bot *t = &b->bots[k];
        if (t->len)
            bot_receive(b, t, t->packet, t->len);
        if (k < BENCH_DOWNLOADERS && b->len2[k])
            bot_receive(b, t, b->packet2[k], b->len2[k]);
        t->len = 0;
        if (k < BENCH_DOWNLOADERS)
            b->len2[k] = 0;
    }
}

/* Server work the bench asks for outside the timed region: the block
 * again to each downloading bot whose last copy is done. */
static void downloads(bench_match *b)
{
    int k;
    for (k = 0; k < b->downloading; k++) {
        zl_block_status st;
        if (zl_server_block_progress(&b->server, k, &st, NULL) == ZL_OK &&
            st.state != ZL_BLOCK_ACTIVE)
            zl_server_block_send(&b->server, k, b->download, b->download_len);
    }
}

static void tally(bench_match *b)
{
    const zl_events *ev = zl_server_events(&b->server);
    uint32_t i;
    for (i = 0; i < ev->count; i++) {
        b->shots += ev->items[i].type == FPS_EV_FIRE;
        b->hits += ev->items[i].type == FPS_EV_HIT && ev->items[i].target >= 0;
        b->kills += ev->items[i].type == FPS_EV_KILL;
    }
    b->ticks++;
    b->snapshot_ticks += b->snapshots_last > 0;
}

uint64_t bench_match_step(bench_match *b)
{
    uint64_t t0, spent;
    int k;
    bots_send(b);
    downloads(b);
    for (k = 0; k < b->players; k++) {
        bench_bot *t = &b->bots[k];
        b->arrived[k].from = t->addr;
        b->arrived[k].data = t->packet;
        b->arrived[k].len = t->len;
    }
    t0 = zl_port_timer_now();
    zl_server_receive_many(&b->server, b->arrived, (size_t)b->players, b->now_us);
    for (k = 0; k < b->players; k++)
        b->bots[k].len = 0;
    b->bad_ticks += zl_server_update(&b->server, b->now_us) != 1;
    spent = zl_port_timer_now() - t0;
    bots_receive(b);
    tally(b);
    b->now_us += TICK_US;
    return spent;
}

/* The payload of a connectionless reply of `type` waiting in t's packet
 * (its length in *len), or NULL. */
static const uint8_t *reply(bench_bot *t, uint8_t type, size_t *len)
{
    zl_packet_header h;
    size_t got = t->len;
    int at = got ? zl_packet_open(t->packet, got, ZL_PROTOCOL_ID, NULL, &h, NULL) : -1;
    t->len = 0;
    if (at < 0 || h.type != type)
        return NULL;
    *len = got - (size_t)at;
    return t->packet + at;
}

/* Seals a handshake message of `payload` bytes (a writer's result) and
 * hands it to the server from t. */
static void hand_over(bench_match *b, const bench_bot *t, uint8_t *packet, int payload, uint8_t type)
{
    int len = payload >= 0 ? zl_conn_seal_unlinked(packet, (size_t)payload, type) : payload;
    if (len > 0)
        zl_server_receive(&b->server, &t->addr, packet, (size_t)len, b->now_us);
}

/* The handshake of bot k, message by message: REQUEST, CHALLENGE,
 * RESPONSE, ACCEPT. Returns 1 when the server gave it a slot. */
/* The bench's backend: the key the server admits tokens of, the address
 * tokens name, the Unix time it runs at. */
static const uint8_t bench_key[ZL_TOKEN_KEY_SIZE] = {0x42, 0x65, 0x6e, 0x63, 0x68};
#define BENCH_UNIX_S 1800000000u

static zl_addr server_address(void) { return zl_addr_ipv4(10, 0, 0, 1, 27015); }

/* Bot k's token: what its TOKEN_REQUEST and TOKEN_RESPONSE carry; its
 * session keys go into t. */
static void mint(bench_bot *t, uint32_t k, zl_msg_token *out)
{
    static zl_connect_token token;
    zl_token_grant g;
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    memset(&g, 0, sizeof g);
    g.client_id = k + 1u;
    g.timeout_s = 5;
    g.address_count = 1;
    g.addresses[0] = server_address();
    memset(g.client_key, (int)(k * 3u + 1u), sizeof g.client_key);
    memset(g.server_key, (int)(k * 5u + 2u), sizeof g.server_key);
    memset(nonce, 0, sizeof nonce);
    memcpy(nonce, &k, sizeof k);
    zl_token_mint(&token, &g, BENCH_UNIX_S, BENCH_UNIX_S + 600u, nonce, bench_key);
    out->expire_s = token.expire_s;
    memcpy(out->nonce, token.nonce, sizeof out->nonce);
    memcpy(out->sealed, token.sealed, sizeof out->sealed);
    memcpy(t->client_key, token.client_key, sizeof t->client_key);
    memcpy(t->server_key, token.server_key, sizeof t->server_key);
}

static int connect_bot(bench_match *b, uint32_t k)
{
    bench_bot *t = &b->bots[k];
    uint8_t out[ZL_PACKET_HEADER_SIZE + ZL_TOKEN_REQUEST_SIZE];
    uint8_t *payload = out + ZL_PACKET_HEADER_SIZE;
    /* Each token message is its plain one with the token after it. */
    union {
        zl_msg_request plain;
        zl_msg_token_request token;
    } rq;
    union {
        zl_msg_response plain;
        zl_msg_token_response token;
    } rs;
    zl_msg_token token;
    uint8_t request_type = b->sealed ? ZL_MSG_TOKEN_REQUEST : ZL_MSG_REQUEST;
    uint8_t response_type = b->sealed ? ZL_MSG_TOKEN_RESPONSE : ZL_MSG_RESPONSE;
    zl_msg_challenge ch;
    zl_msg_accept ac;
    const uint8_t *in;
    size_t len, tag = b->sealed ? ZL_PACKET_TAG_SIZE : 0u; /* replies to a token end in one */
    memset(t, 0, sizeof *t);
    t->addr = zl_addr_ipv4(10, 1, (uint8_t)(k >> 8), (uint8_t)k, (uint16_t)(BASE_PORT + k));
    t->nonce = 0x9E3779B97F4A7C15u * (k + 1u);
    memset(&token, 0, sizeof token); /* a plain request carries no token */
    if (b->sealed)
        mint(t, k, &token);
    rq.token.protocol_id = ZL_PROTOCOL_ID;
    rq.token.nonce = t->nonce;
    zl_client_settings_default(&rq.token.settings);
    rq.token.settings.updaterate = UPDATE_RATE;
    rq.token.settings.cmdrate = TICK_RATE;
    rq.token.token = token;
    hand_over(b, t, out,
              zl_msg_write(request_type, payload, sizeof out - ZL_PACKET_HEADER_SIZE, &rq),
              request_type);
    in = reply(t, ZL_MSG_CHALLENGE, &len);
    if (!in || len < tag || zl_msg_read(ZL_MSG_CHALLENGE, in, len - tag, &ch) != ZL_OK)
        return 0;
    rs.token.nonce = t->nonce;
    rs.token.window = ch.window;
    rs.token.cookie = ch.cookie;
    rs.token.settings = rq.token.settings;
    rs.token.token = token;
    hand_over(b, t, out,
              zl_msg_write(response_type, payload, sizeof out - ZL_PACKET_HEADER_SIZE, &rs),
              response_type);
    in = reply(t, ZL_MSG_ACCEPT, &len);
    if (!in || len < tag || zl_msg_read(ZL_MSG_ACCEPT, in, len - tag, &ac) != ZL_OK)
        return 0;
    t->first_tick = ac.server_tick + 1u;
    t->link_id = zl_connection_id(t->nonce);
    zl_link_init(&t->link, b->now_us);
    return 1;
}

int bench_match_start(bench_match *b, int players, int relevance, int sealed)
{
    zl_server_config sc;
    zl_platform net;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    uint32_t k;
    b->players = players;
    fps_game_init(&b->game_state);
    b->game = fps_game_interface(&b->game_state);
    if (relevance)
        b->game.relevance = fps_relevance_cb;
    if (b->no_events)
        b->game.event_schema = NULL;
    zl_server_config_default(&sc);
    b->sealed = sealed;
    zl_aead_default(&b->aead);
    if (sealed) {
        memcpy(sc.private_key, bench_key, sizeof bench_key);
        sc.public_address_count = 1;
        sc.public_addresses[0] = server_address();
        sc.unix_time_s = BENCH_UNIX_S;
    } else {
        sc.security = ZL_SECURITY_PLAIN; /* the series as before; sealing is its own row */
    }
    sc.tick_rate = TICK_RATE;
    sc.max_clients = (uint16_t)players;
    sc.limits.updaterate_max = TICK_RATE;
    sc.limits.cmdrate_max = TICK_RATE;
    /* Everyone asks for a challenge at once, and hashed addresses share
     * the limiter's buckets. */
    sc.ratelimit.global_burst = 2u * ZL_MAX_CLIENTS;
    sc.ratelimit.addr_burst = ZL_MAX_CLIENTS;
    memset(&net, 0, sizeof net);
    net.ctx = b;
    net.send = deliver;
    memset(secret, 0x5A, sizeof secret);
    b->now_us = 1000000u;
    if (zl_server_init(&b->server, &sc, &b->game, &net, secret, b->now_us) != ZL_OK)
        return 0;
    for (k = 0; k < (uint32_t)players; k++)
        if (!connect_bot(b, k))
            return 0;
    b->now_us += TICK_US;
    for (k = 0; k < WARMUP_TICKS; k++)
        bench_match_step(b);
    b->ticks = b->snapshot_ticks = b->shots = b->hits = b->kills = 0;
    b->overflow = b->bad_ticks = 0;
    return 1;
}

void bench_match_report(bench_match *b)
{
    uint32_t snapshots = 0, choked = 0, bytes = 0, lost = 0, behind = 0, dead = 0;
    int k;
    for (k = 0; k < b->players; k++) {
        zl_server_client_stats st;
        const fps_player *p = (const fps_player *)zl_server_player(&b->server, k);
        if (!p || zl_server_get_client_stats(&b->server, k, b->now_us, &st) != ZL_OK)
            continue;
        dead += (p->flags & FPS_PF_DEAD) != 0;
        snapshots += st.snapshots;
        choked += st.choked;
        bytes += st.last_snapshot_bytes;
        lost += st.commands.lost;
        behind += b->bots[k].newest - st.executed;
    }
    zl_bench_note("server", "%d players, %u ticks timed or run between: %u.%02u shots and %u.%02u "
                  "player hits per tick, %u kills, %u dead at the end",
                  b->players, b->ticks, b->shots / b->ticks, b->shots * 100u / b->ticks % 100u,
                  b->hits / b->ticks, b->hits * 100u / b->ticks % 100u, b->kills, dead);
    zl_bench_note("server", "  %u of those ticks sent snapshots; since joining: %u snapshots, "
                  "%u choked, the last %u bytes on average; commands lost %u, waiting %u.%02u "
                  "per player", b->snapshot_ticks, snapshots, choked,
                  bytes / (uint32_t)b->players, lost,
                  behind / (uint32_t)b->players, behind * 100u / (uint32_t)b->players % 100u);
    if (b->overflow || b->bad_ticks)
        zl_bench_note("server", "  BROKEN RUN: %u datagrams lost in delivery, %u calls that did "
                      "not run exactly one tick or batches short of their kind of tick",
                      b->overflow, b->bad_ticks);
}

