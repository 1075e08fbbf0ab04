/* bench_flood.c - what a flood of connection requests costs the server, one
 * datagram at a time: plain REQUESTs at a plain server, and TOKEN_REQUESTs
 * with garbage in place of a token at a token server, from many addresses. */
#include <string.h>

#include "fps.h"
#include "zl_bench.h"
#include "zl_server.h"

/* Sources the flood cycles through (one port each), and the time between
 * two requests: 100,000 a second, far over every rate limit. */
#define SOURCES 4096u
#define STEP_US 10u
#define FLOOD_UNIX_S 1800000000u
/* Requests before the timed ones: more than the global burst (256) and
 * every source's (4), so the timed ones meet the limits' steady state. */
#define WARMUP 2u * SOURCES

typedef struct flood_bench {
    fps_game game_state;
    zl_game game;
    zl_server server;
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_TOKEN_REQUEST_SIZE];
    size_t len;
    uint32_t sent;
    uint64_t now_us;
} flood_bench;

/* The server's replies (CHALLENGE, DENY) go nowhere. */
static int discard(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    (void)ctx;
    (void)to;
    (void)data;
    (void)len;
    return ZL_OK;
}

/* A fresh server, plain or with tokens; limit 0: the default rate limits,
 * else limits no flood here reaches (every request gets through to be
 * judged). Returns 0 when it would not start. */
static int start(flood_bench *b, int tokens, int unlimited)
{
    static const uint8_t key[ZL_TOKEN_KEY_SIZE] = {0x46, 0x6c, 0x6f, 0x6f, 0x64};
    zl_server_config sc;
    zl_platform net;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    fps_game_init(&b->game_state);
    b->game = fps_game_interface(&b->game_state);
    zl_server_config_default(&sc);
    sc.max_clients = 8;
    if (tokens) {
        memcpy(sc.private_key, key, sizeof key);
        sc.public_address_count = 1;
        sc.public_addresses[0] = zl_addr_ipv4(10, 0, 0, 1, 27015);
        sc.unix_time_s = FLOOD_UNIX_S;
    } else {
        sc.security = ZL_SECURITY_PLAIN;
    }
    if (unlimited) {
        sc.ratelimit.socket_rate = sc.ratelimit.addr_rate = sc.ratelimit.global_rate = 1000000u;
        sc.ratelimit.socket_burst = sc.ratelimit.addr_burst = sc.ratelimit.global_burst =
            1000000u;
    }
    memset(&net, 0, sizeof net);
    net.send = discard;
    memset(secret, 0x3C, sizeof secret);
    b->now_us = 1000000u;
    b->sent = 0;
    return zl_server_init(&b->server, &sc, &b->game, &net, secret, b->now_us) == ZL_OK;
}

/* The datagram every source sends: a plain REQUEST, or a TOKEN_REQUEST
 * whose token is bytes no backend minted, expiring `expire_s` seconds
 * after the server's clock started (0: already expired). */
static void make_request(flood_bench *b, int tokens, uint32_t expire_s)
{
    /* Each token message is its plain one with the token after it. */
    union {
        zl_msg_request plain;
        zl_msg_token_request token;
    } m;
    uint8_t type = tokens ? ZL_MSG_TOKEN_REQUEST : ZL_MSG_REQUEST;
    size_t i;
    int payload;
    memset(&m, 0, sizeof m);
    m.token.protocol_id = ZL_PROTOCOL_ID;
    m.token.nonce = 0x243F6A8885A308D3u;
    zl_client_settings_default(&m.token.settings);
    m.token.token.expire_s = FLOOD_UNIX_S + expire_s;
    for (i = 0; i < sizeof m.token.token.nonce; i++)
        m.token.token.nonce[i] = (uint8_t)(i * 151u + 7u);
    for (i = 0; i < sizeof m.token.token.sealed; i++)
        m.token.token.sealed[i] = (uint8_t)(i * 2654435761u >> 24);
    payload = zl_msg_write(type, b->packet + ZL_PACKET_HEADER_SIZE,
                           sizeof b->packet - ZL_PACKET_HEADER_SIZE, &m);
    ZL_ASSERT(payload > 0);
    b->len = (size_t)zl_conn_seal_unlinked(b->packet, (size_t)payload, type);
}

static void body_flood(void *ctx, uint32_t n)
{
    flood_bench *b = (flood_bench *)ctx;
    uint32_t i;
    for (i = 0; i < n; i++) {
        uint32_t k = b->sent++ % SOURCES;
        zl_addr from = zl_addr_ipv4(172, 16, (uint8_t)(k >> 4), (uint8_t)(k & 15u),
                                    (uint16_t)(1024u + k));
        zl_server_receive(&b->server, &from, b->packet, b->len, b->now_us);
        b->now_us += STEP_US;
    }
    zl_bench_sink += b->sent;
}

/* One row: the cost of one request of the kind made, then what the server
 * did with all of them. Returns the median as zl_bench_measure does. */
static uint64_t row(flood_bench *b, const char *name, int tokens, int unlimited,
                    uint32_t expire_s)
{
    uint32_t d[ZL_SERVER_DROP_COUNT];
    uint64_t cost;
    if (!start(b, tokens, unlimited)) {
        zl_bench_note("flood", "%s: the server would not start", name);
        return 0;
    }
    make_request(b, tokens, expire_s);
    /* Past every burst first: the rows are the flood's steady state. */
    body_flood(b, WARMUP);
    cost = zl_bench_measure("flood", name, body_flood, NULL, b);
    zl_server_get_drops(&b->server, d);
    zl_bench_note("flood", "  %u requests of %u bytes: rate limited %u, no token %u, forged %u, "
                  "expired %u",
                  b->sent, (unsigned)b->len, d[ZL_SERVER_DROP_RATE], d[ZL_SERVER_DROP_PLAIN],
                  d[ZL_SERVER_DROP_TOKEN_FORGED], d[ZL_SERVER_DROP_TOKEN_EXPIRED]);
    return cost;
}

void zl_bench_flood(void)
{
    flood_bench *b = (flood_bench *)zl_bench_arena(sizeof *b);
    uint64_t plain, garbage, expired, opened;
    zl_bench_note("flood", "one connection request through zl_server_receive, 100,000 a second "
                  "from %u sources (one port each), the default rate limits unless said",
                  SOURCES);
    plain = row(b, "plain REQUEST, plain server", 0, 0, 0);
    garbage = row(b, "garbage token, token server", 1, 0, 600);
    expired = row(b, "garbage token, expired", 1, 0, 0);
    opened = row(b, "garbage token, no rate limit", 1, 1, 600);
    zl_bench_ratio("flood", "garbage token flood / plain flood", garbage, plain ? plain : 1u);
    zl_bench_ratio("flood", "expired garbage / plain flood", expired, plain ? plain : 1u);
    zl_bench_ratio("flood", "one token opened (no limit) / plain flood", opened,
                   plain ? plain : 1u);
    zl_bench_note("flood", "the global limit (256 a second, burst 256) bounds the tokens "
                  "opened: at most 512 in the first second, 256 a second after");
}
