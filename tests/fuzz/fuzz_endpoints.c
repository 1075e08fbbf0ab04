/* fuzz_endpoints.c - libFuzzer harness for the whole receive path of both
 * endpoints: a connected server and client, hostile datagrams between genuine traffic. */
/* FUZZ_FLAGS: -DZL_MAX_CLIENTS=2 -DZL_MAX_ENTITIES=40 -DZL_LAGCOMP_TICKS=32
 * -DZL_INTERP_SAMPLES=8 -DZL_PREDICT_COMMANDS=32 -DZL_SNAPSHOT_WORLD_TICKS=8
 * -DZL_SNAPSHOT_SENT=16 -DZL_SNAPSHOT_FRAMES=8 -DZL_SERVER_EVENTS=128
 * -DZL_SERVER_SHOTS=16 -DZL_RATELIMIT_BUCKETS=16
 * FUZZ_MAX_LEN: 512
 * (tools/fuzz.sh passes them: small capacities make the whole pair about
 * 130 KB, so it is restored from a copy before every input; 8 ticks of
 * history still keep every baseline an honest client acknowledges, and a
 * stale one takes the full-snapshot path. Every record runs up to 3 ms of
 * genuine traffic, so an input's cost grows with its length: 512 bytes
 * hold a few dozen short records.) */
#include <string.h>

#include "zl_fuzz.h"

#include "fps.h"
#include "zl_bytes.h"
#include "zl_client.h"
#include "zl_server.h"

/* The input is a series of records, each a datagram for one endpoint:
 *   byte 0   bit 0: 0 to the server (from the client's address), 1 to the
 *            client (from the server's); bits 1..2 how it is built (below);
 *            bits 3..4 milliseconds of genuine traffic after it (0..3)
 *   byte 1   length (0..255), cut to what the input still has
 *   then     the bytes
 * Built as: 0 the bytes as they are; 1 a connected packet: type, sequence,
 * ack and ack bits from the first 9 bytes, the rest as payload, sealed
 * under the connection's id so it passes the CRC and reaches the message
 * parsers; 2 a connectionless message: type from the first byte, sealed
 * under the protocol id; 3 the other side's last genuine datagram with the
 * bytes xor-ed over its payload, sealed again (a valid packet with hostile
 * contents: snapshots against real baselines). The datagram is copied into
 * a buffer of exactly its length, so AddressSanitizer catches a read past
 * its end. */
#define HOW_RAW 0
#define HOW_LINKED 1
#define HOW_UNLINKED 2
#define HOW_MUTATED 3
#define QUEUE 8

typedef struct datagram {
    uint16_t len;
    uint8_t data[ZL_MAX_PACKET];
} datagram;

typedef struct queue {
    uint32_t count;
    datagram item[QUEUE];
} queue;

/* Everything that changes, in one struct, so an input starts from a copy. */
typedef struct pair {
    uint64_t now;
    uint32_t frame;
    fps_game game;
    zl_game rules;
    zl_platform server_hal, client_hal;
    zl_server server;
    zl_client client;
    queue to_server, to_client;
    datagram last_to_server, last_to_client; /* genuine, for HOW_MUTATED */
} pair;

static pair live, pristine;
static const zl_addr server_addr = {ZL_ADDR_IPV4, {10, 0, 0, 1}, 27015};
static const zl_addr client_addr = {ZL_ADDR_IPV4, {10, 0, 0, 2}, 40000};

static uint64_t pair_now(void *ctx)
{
    (void)ctx;
    return live.now;
}

static int pair_random(void *ctx, void *out, size_t len)
{
    (void)ctx;
    memset(out, 0x5A, len);
    return ZL_OK;
}

static int no_receive(void *ctx, zl_addr *from, void *buf, size_t cap)
{
    (void)ctx, (void)from, (void)buf, (void)cap;
    return ZL_ERR_AGAIN;
}

static int push(queue *q, datagram *last, const void *data, size_t len)
{
    if (len == 0 || len > ZL_MAX_PACKET)
        return ZL_ERR_INVALID;
    last->len = (uint16_t)len;
    memcpy(last->data, data, len);
    if (q->count < QUEUE)
        q->item[q->count++] = *last;
    return ZL_OK;
}

static int server_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    (void)ctx, (void)to;
    return push(&live.to_client, &live.last_to_client, data, len);
}

static int client_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    (void)ctx, (void)to;
    return push(&live.to_server, &live.last_to_server, data, len);
}

/* Walks, turns, jumps, shoots and switches weapons. */
static void bot_command(void)
{
    zl_usercmd c;
    uint32_t f = live.frame;
    memset(&c, 0, sizeof c);
    c.msec = 16;
    c.forward = 127;
    c.side = (int8_t)(f % 128u < 64u ? 90 : -90);
    c.yaw = (zl_angle)(f * 300u);
    c.pitch = (zl_angle)(f * 97u);
    c.buttons = (uint16_t)((f % 3u == 0 ? FPS_BUTTON_ATTACK : 0) |
                           (f % 41u == 0 ? FPS_BUTTON_JUMP : 0));
    c.weapon = (uint8_t)(f % 150u == 0 ? 1u + (f / 150u) % FPS_WEAPON_COUNT : 0u);
    c.seed = (uint8_t)f;
    zl_client_frame(&live.client, live.now);
    zl_client_command(&live.client, &c, NULL);
}

/* One millisecond of genuine traffic both ways. Each queue is read in
 * place (a copy of it cost more than the rest of a step): the server only
 * ever adds to the client's queue and the client to the server's. */
static void step(void)
{
    uint32_t i;
    live.now += 1000u;
    for (i = 0; i < live.to_server.count; i++)
        zl_server_receive(&live.server, &client_addr, live.to_server.item[i].data,
                          live.to_server.item[i].len, live.now);
    live.to_server.count = 0;
    zl_server_update(&live.server, live.now);
    for (i = 0; i < live.to_client.count; i++)
        zl_client_receive(&live.client, &server_addr, live.to_client.item[i].data,
                          live.to_client.item[i].len, live.now);
    live.to_client.count = 0;
    zl_client_update(&live.client, live.now);
    if (live.now % 16000u == 0) {
        live.frame++;
        bot_command();
    }
}

static void setup(void)
{
    zl_server_config sc;
    zl_client_config cc;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    int i;
    memset(&live, 0, sizeof live);
    live.now = 1000000u;
    fps_game_init(&live.game);
    live.rules = fps_game_interface(&live.game);
    live.server_hal.now_us = pair_now;
    live.server_hal.random = pair_random;
    live.server_hal.receive = no_receive;
    live.client_hal = live.server_hal;
    live.server_hal.send = server_send;
    live.client_hal.send = client_send;
    zl_server_config_default(&sc);
    sc.security = ZL_SECURITY_PLAIN; /* the fuzzer forges plain packets */
    memset(secret, 0x77, sizeof secret);
    REQUIRE(zl_server_init(&live.server, &sc, &live.rules, &live.server_hal, secret, live.now) ==
            ZL_OK);
    zl_client_config_default(&cc);
    REQUIRE(zl_client_init(&live.client, &cc, &live.rules, &live.client_hal, 0x0123456789ABCDEFu) ==
            ZL_OK);
    zl_client_connect(&live.client, &server_addr, live.now);
    /* Long enough for snapshots to flow and commands to run. */
    for (i = 0; i < 700; i++)
        step();
    REQUIRE(zl_client_state(&live.client) == ZL_CLIENT_CONNECTED);
    REQUIRE(zl_client_latest(&live.client) != NULL);
    pristine = live;
}

/* Builds the datagram a record asks for into out; returns its length. */
static size_t build(int to_client, int how, const uint8_t *p, size_t n, uint8_t *out)
{
    uint32_t id = zl_connection_id(live.client.conn.nonce);
    zl_packet_header h;
    int len;
    if (how == HOW_LINKED && n >= 9) {
        h.type = (uint8_t)(p[0] % ZL_PACKET_TYPE_COUNT);
        h.sequence = zl_get_le16(p + 1);
        h.ack = zl_get_le16(p + 3);
        h.ack_bits = zl_get_le32(p + 5);
        /* Fields short as the input's type byte asks: read right only
         * when the receiver's references are near them. */
        h.short_fields = (uint8_t)(p[0] & (ZL_PACKET_SHORT_SEQUENCE | ZL_PACKET_SHORT_ACK));
        memcpy(out + ZL_PACKET_HEADER_SIZE, p + 9, n - 9);
        len = zl_packet_seal(out, n - 9, &h, id);
        return len > 0 ? (size_t)len : 0;
    }
    if (how == HOW_UNLINKED && n >= 1) {
        memcpy(out + ZL_PACKET_HEADER_SIZE, p + 1, n - 1);
        len = zl_conn_seal_unlinked(out, n - 1, (uint8_t)(p[0] % ZL_PACKET_TYPE_COUNT));
        return len > 0 ? (size_t)len : 0;
    }
    if (how == HOW_MUTATED) {
        const datagram *g = to_client ? &live.last_to_client : &live.last_to_server;
        /* Its receiver took it last: its references still read it. */
        zl_packet_near near = zl_link_near(to_client ? &live.client.conn.link
                                                     : &live.server.slot[0].conn.link);
        size_t i, payload;
        int at = zl_packet_open(g->data, g->len, id, &near, &h, NULL);
        if (at < 0)
            return 0;
        payload = g->len - (size_t)at;
        memcpy(out + ZL_PACKET_HEADER_SIZE, g->data + at, payload);
        for (i = 0; i < n && i < payload; i++)
            out[ZL_PACKET_HEADER_SIZE + i] ^= p[i];
        len = zl_packet_seal(out, payload, &h, id);
        return len > 0 ? (size_t)len : 0;
    }
    memcpy(out, p, n);
    return n;
}

/* What must hold whatever arrived: the input buffers' counters after
 * every datagram (read from the slot itself: the whole net graph costs a
 * tenth of an input's time); states, the costliest check (over a third of
 * an input's time when it ran per datagram), at the end of each input
 * (states: 1). */
static void check(int states)
{
    zl_cmdbuf_stats st;
    int slot;
    REQUIRE(zl_server_client_count(&live.server) <= 1);
    for (slot = 0; slot < ZL_MAX_CLIENTS; slot++) {
        const zl_cmdbuf_stats *c = &st;
        uint8_t q[ZL_STATE_MAX];
        const void *p = zl_server_player(&live.server, slot);
        if (!p)
            continue;
        zl_cmdbuf_get_stats(&live.server.slot[slot].commands, &st);
        REQUIRE(c->received == c->duplicates + c->invalid + c->overflow + c->dropped_ahead +
                                   c->executed + c->depth_cmds);
        REQUIRE(c->depth_cmds <= ZL_CMDBUF_CAPACITY);
        if (!states)
            continue;
        /* The server's states stay what the wire can carry. */
        memcpy(q, p, fps_player_schema.size);
        zl_schema_quantize(&fps_player_schema, q);
        REQUIRE(zl_schema_equal(&fps_player_schema, q, p, ZL_SCHEMA_ALL));
    }
    if (states && zl_client_predicted(&live.client)) {
        uint8_t q[ZL_STATE_MAX];
        memcpy(q, zl_client_predicted(&live.client), fps_player_schema.size);
        zl_schema_quantize(&fps_player_schema, q);
        REQUIRE(zl_schema_equal(&fps_player_schema, q, zl_client_predicted(&live.client),
                                ZL_SCHEMA_WIRE));
    }
    REQUIRE(zl_client_state(&live.client) <= ZL_CLIENT_DISCONNECTED);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    static uint8_t packet[ZL_MAX_PACKET];
    if (!ready) {
        setup();
        ready = 1;
    }
    live = pristine;
    while (size >= 2) {
        uint8_t op = data[0];
        size_t n = data[1] < size - 2 ? data[1] : size - 2;
        int to_client = op & 1, ms;
        size_t len = build(to_client, (op >> 1) & 3, data + 2, n, packet);
        uint8_t *copy = zl_fuzz_copy(packet, len);
        if (to_client)
            zl_client_receive(&live.client, &server_addr, copy, len, live.now);
        else
            zl_server_receive(&live.server, &client_addr, copy, len, live.now);
        free(copy);
        for (ms = (op >> 3) & 3; ms > 0; ms--)
            step();
        check(0);
        data += 2 + n;
        size -= 2 + n;
    }
    check(1);
    return 0;
}
