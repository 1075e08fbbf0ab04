/* test_token.c - connect tokens (mint, wire, open, the used-token cache),
 * sealed connections (forged, tampered, truncated, replayed packets dropped
 * and counted) and a server that admits only token holders. */
#include <string.h>

#include "zl_conn.h"
#include "zl_match.h"
#include "zl_test.h"
#include "zl_token.h"

static const uint8_t key_a[ZL_TOKEN_KEY_SIZE] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                                 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                                 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static const uint8_t key_b[ZL_TOKEN_KEY_SIZE] = {32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22,
                                                 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11,
                                                 10, 9,  8,  7,  6,  5,  4,  3,  2,  1};
#define NOW_S 1800000000u

static void make_grant(zl_token_grant *g)
{
    memset(g, 0, sizeof *g);
    g->client_id = 0x1122334455667788u;
    g->timeout_s = 7;
    g->address_count = 2;
    g->addresses[0] = zl_addr_ipv4(10, 0, 0, 1, 27015);
    g->addresses[1] = zl_addr_ipv4(192, 168, 1, 9, 40000);
    memset(g->client_key, 0xC1, sizeof g->client_key);
    memset(g->server_key, 0x5E, sizeof g->server_key);
    memset(g->user_data, 0x42, sizeof g->user_data);
}

static void mint(zl_connect_token *t, uint8_t nonce_byte, uint64_t expire_s)
{
    zl_token_grant g;
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    make_grant(&g);
    memset(nonce, nonce_byte, sizeof nonce);
    ZL_CHECK_EQ(zl_token_mint(t, &g, NOW_S - 10u, expire_s, nonce, key_a), ZL_OK);
}

static void test_token_round_trip(void)
{
    static uint8_t wire[ZL_TOKEN_WIRE_SIZE + 1];
    zl_connect_token t, back;
    zl_token_grant want, got;
    mint(&t, 7, NOW_S + 30u);
    ZL_CHECK_EQ(zl_token_write(wire, sizeof wire, &t), ZL_TOKEN_WIRE_SIZE);
    ZL_CHECK_EQ(zl_token_write(wire, ZL_TOKEN_WIRE_SIZE - 1, &t), ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(zl_token_read(wire, ZL_TOKEN_WIRE_SIZE, &back), ZL_OK);
    ZL_CHECK(memcmp(&t, &back, sizeof t) == 0);
    ZL_CHECK_EQ(zl_token_read(wire, ZL_TOKEN_WIRE_SIZE - 1, &back), ZL_ERR_MALFORMED);
    wire[0] ^= 1; /* another protocol's token */
    ZL_CHECK_EQ(zl_token_read(wire, ZL_TOKEN_WIRE_SIZE, &back), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(back.expire_s, 0);
    /* The server opens the private part and finds what the backend put. */
    make_grant(&want);
    ZL_CHECK_EQ(zl_token_open(&got, t.sealed, t.expire_s, t.nonce, key_a, NOW_S), ZL_OK);
    ZL_CHECK(memcmp(&got, &want, sizeof got) == 0);
    ZL_CHECK(zl_token_names(&got, &want.addresses[1]));
    ZL_CHECK(zl_token_names(&got, &t.addresses[0]));
    {
        zl_addr other = zl_addr_ipv4(10, 0, 0, 1, 27016);
        ZL_CHECK(!zl_token_names(&got, &other));
    }
    /* The client's copy holds the same session keys. */
    ZL_CHECK(memcmp(t.client_key, want.client_key, sizeof t.client_key) == 0);
    ZL_CHECK(memcmp(t.server_key, want.server_key, sizeof t.server_key) == 0);
}

static void test_token_refusals(void)
{
    zl_connect_token t;
    zl_token_grant g;
    size_t i;
    int all_refused = 1;
    mint(&t, 9, NOW_S + 30u);
    /* Another server's key, a changed expiry, a changed nonce. */
    ZL_CHECK_EQ(zl_token_open(&g, t.sealed, t.expire_s, t.nonce, key_b, NOW_S), ZL_ERR_AUTH);
    ZL_CHECK_EQ(g.client_id, 0);
    ZL_CHECK_EQ(zl_token_open(&g, t.sealed, t.expire_s + 3600u, t.nonce, key_a, NOW_S),
                ZL_ERR_AUTH);
    t.nonce[5] ^= 0x80;
    ZL_CHECK_EQ(zl_token_open(&g, t.sealed, t.expire_s, t.nonce, key_a, NOW_S), ZL_ERR_AUTH);
    t.nonce[5] ^= 0x80;
    /* Every byte of the sealed part tampered with. */
    for (i = 0; i < ZL_TOKEN_SEALED_SIZE; i++) {
        t.sealed[i] ^= 0x04;
        all_refused &= zl_token_open(&g, t.sealed, t.expire_s, t.nonce, key_a, NOW_S) == ZL_ERR_AUTH;
        t.sealed[i] ^= 0x04;
    }
    ZL_CHECK(all_refused);
    /* Expired: at its expiry second and after. */
    ZL_CHECK_EQ(zl_token_open(&g, t.sealed, t.expire_s, t.nonce, key_a, t.expire_s), ZL_ERR_AGAIN);
    ZL_CHECK_EQ(zl_token_open(&g, t.sealed, t.expire_s, t.nonce, key_a, t.expire_s - 1u), ZL_OK);
    /* What the minter refuses. */
    {
        zl_token_grant bad;
        zl_connect_token out;
        uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
        memset(nonce, 1, sizeof nonce);
        make_grant(&bad);
        bad.address_count = 0;
        ZL_CHECK_EQ(zl_token_mint(&out, &bad, NOW_S, NOW_S + 1u, nonce, key_a), ZL_ERR_INVALID);
        make_grant(&bad);
        ZL_CHECK_EQ(zl_token_mint(&out, &bad, NOW_S, NOW_S, nonce, key_a), ZL_ERR_INVALID);
    }
}

static void test_token_cache(void)
{
    static zl_token_cache cache;
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    zl_addr a = zl_addr_ipv4(1, 2, 3, 4, 5000), b = zl_addr_ipv4(1, 2, 3, 4, 5001);
    int i, live = 1;
    memset(&cache, 0, sizeof cache);
    memset(nonce, 0xAB, sizeof nonce);
    ZL_CHECK(zl_token_cache_allows(&cache, nonce, &a, NOW_S));
    zl_token_cache_add(&cache, nonce, &a, NOW_S + 30u, NOW_S);
    ZL_CHECK(zl_token_cache_allows(&cache, nonce, &a, NOW_S)); /* a retry */
    ZL_CHECK(!zl_token_cache_allows(&cache, nonce, &b, NOW_S)); /* another address */
    ZL_CHECK(zl_token_cache_allows(&cache, nonce, &b, NOW_S + 30u)); /* expired: forgotten */
    /* A full cache makes room from the entry closest to expiry, never from
     * a token that lives longer. */
    for (i = 0; i < ZL_TOKEN_CACHE; i++) {
        uint8_t n[ZL_TOKEN_NONCE_SIZE];
        memset(n, 0, sizeof n);
        n[0] = (uint8_t)i;
        n[1] = 1;
        zl_token_cache_add(&cache, n, &a, NOW_S + 100u + (uint64_t)i, NOW_S);
    }
    for (i = 1; i < ZL_TOKEN_CACHE; i++) {
        uint8_t n[ZL_TOKEN_NONCE_SIZE];
        memset(n, 0, sizeof n);
        n[0] = (uint8_t)i;
        n[1] = 1;
        live &= !zl_token_cache_allows(&cache, n, &b, NOW_S);
    }
    ZL_CHECK(live);
}

/* ---- Sealed connections ---- */

typedef struct capture {
    uint8_t data[ZL_MAX_PACKET];
    size_t len;
    uint32_t sent;
} capture;

static int capture_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    capture *c = (capture *)ctx;
    (void)to;
    memcpy(c->data, data, len);
    c->len = len;
    c->sent++;
    return ZL_OK;
}

static capture wire;
static zl_conn alice, bob; /* alice is the client end, bob the server's */

static void connect_pair(int sealed)
{
    zl_sender out = {&wire, capture_send};
    zl_addr a = zl_addr_ipv4(10, 0, 1, 1, 1000), b = zl_addr_ipv4(10, 0, 0, 1, 27015);
    memset(&wire, 0, sizeof wire);
    zl_conn_init(&alice, &out, &b, 77);
    zl_conn_init(&bob, &out, &a, 77);
    zl_conn_start_link(&alice, 0);
    zl_conn_start_link(&bob, 0);
    if (sealed) {
        zl_conn_seal_with(&alice, key_a, key_b, NULL, 0);
        zl_conn_seal_with(&bob, key_b, key_a, NULL, 1);
    }
}

/* alice sends a COMMANDS packet with `text` as payload; bob's view of it. */
static int alice_sends(const char *text)
{
    uint8_t packet[ZL_MAX_PACKET];
    size_t n = strlen(text);
    memcpy(packet + ZL_PACKET_HEADER_SIZE, text, n);
    return zl_conn_send(&alice, ZL_MSG_COMMANDS, packet, (int)n, 1000);
}

static int bob_takes(uint8_t *packet, size_t len, zl_conn_datagram *d)
{
    int kind = zl_conn_open(&bob, 1, packet, len, d);
    if (kind != ZL_CONN_LINKED)
        return kind;
    return zl_link_accept(&bob.link, &d->h, len, 1000, NULL) == ZL_OK ? ZL_CONN_LINKED
                                                                     : ZL_ERR_DUPLICATE;
}

static uint32_t dropped(const zl_conn *c, int why)
{
    return c->link.stats.dropped[why];
}

static void test_sealed_packets(void)
{
    uint8_t copy[ZL_MAX_PACKET];
    zl_conn_datagram d;
    size_t i;
    int len, tamper_refused = 1, plain_visible;
    const char *secret = "enemy at 1024,512";
    /* Plain: the payload travels as it is. */
    connect_pair(0);
    len = alice_sends(secret);
    plain_visible = memcmp(wire.data + ZL_PACKET_HEADER_SIZE, secret, strlen(secret)) == 0;
    ZL_CHECK(plain_visible);
    /* Sealed: 16 bytes more, nothing readable, and bob reads it back. */
    connect_pair(1);
    len = alice_sends(secret);
    ZL_CHECK_EQ(len, (int)(ZL_PACKET_HEADER_SIZE + strlen(secret) + ZL_PACKET_TAG_SIZE));
    ZL_CHECK(memcmp(wire.data + ZL_PACKET_HEADER_SIZE, secret, strlen(secret)) != 0);
    memcpy(copy, wire.data, wire.len);
    ZL_CHECK_EQ(bob_takes(copy, wire.len, &d), ZL_CONN_LINKED);
    ZL_CHECK_EQ(d.payload_len, strlen(secret));
    ZL_CHECK(memcmp(d.payload, secret, d.payload_len) == 0);
    ZL_CHECK_EQ(d.h.type, ZL_MSG_COMMANDS);
    /* Replayed: authentic, so it opens, but the link refuses it. */
    memcpy(copy, wire.data, wire.len);
    ZL_CHECK_EQ(bob_takes(copy, wire.len, &d), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(dropped(&bob, ZL_PACKET_DROP_DUPLICATE), 1);
    /* Every byte tampered with (header, payload, tag): refused, counted,
     * and the buffer left as it was. */
    alice_sends(secret);
    for (i = 0; i < wire.len; i++) {
        memcpy(copy, wire.data, wire.len);
        copy[i] ^= 0x20;
        tamper_refused &= bob_takes(copy, wire.len, &d) < 0;
        copy[i] ^= 0x20;
        tamper_refused &= memcmp(copy, wire.data, wire.len) == 0;
    }
    ZL_CHECK(tamper_refused);
    ZL_CHECK(dropped(&bob, ZL_PACKET_DROP_CHECKSUM) + dropped(&bob, ZL_PACKET_DROP_FORMAT) ==
             wire.len);

    /* Truncated: short of a tag, or cut anywhere. */
    for (i = 0; i < wire.len; i++) {
        memcpy(copy, wire.data, wire.len);
        ZL_CHECK(bob_takes(copy, i, &d) < 0);
    }
    /* The untampered one still opens: nothing above moved bob's state. */
    memcpy(copy, wire.data, wire.len);
    ZL_CHECK_EQ(bob_takes(copy, wire.len, &d), ZL_CONN_LINKED);
    /* Forged by someone without the key: a packet sealed under another. */
    {
        zl_conn mallory;
        zl_sender out = {&wire, capture_send};
        zl_conn_init(&mallory, &out, &alice.peer, 77);
        zl_conn_start_link(&mallory, 0);
        zl_conn_seal_with(&mallory, key_b, key_b, NULL, 0);
        mallory.send_sequence = alice.send_sequence;
        mallory.link.next_sequence = alice.link.next_sequence;
        {
            uint8_t packet[ZL_MAX_PACKET];
            memcpy(packet + ZL_PACKET_HEADER_SIZE, "fire", 4);
            zl_conn_send(&mallory, ZL_MSG_COMMANDS, packet, 4, 1000);
        }
        {
            uint32_t before = dropped(&bob, ZL_PACKET_DROP_CHECKSUM);
            memcpy(copy, wire.data, wire.len);
            ZL_CHECK(bob_takes(copy, wire.len, &d) < 0);
            ZL_CHECK_EQ(dropped(&bob, ZL_PACKET_DROP_CHECKSUM), before + 1u);
        }
    }
    /* The counters the net graph shows: bob opened the packet, its replay
     * and the untampered one again; alice sealed two. A plain connection
     * seals nothing. */
    {
        zl_seal_stats st;
        zl_conn_get_seal_stats(&bob, &st);
        ZL_CHECK_EQ(st.opened, 3);
        ZL_CHECK_EQ(st.replayed, 1);
        ZL_CHECK_EQ(st.forged, dropped(&bob, ZL_PACKET_DROP_CHECKSUM));
        ZL_CHECK(st.forged > 1u);
        zl_conn_get_seal_stats(&alice, &st);
        ZL_CHECK_EQ(st.sealed, 2);
        connect_pair(0);
        alice_sends(secret);
        zl_conn_get_seal_stats(&alice, &st);
        ZL_CHECK_EQ(st.sealed, 0);
    }
}

/* The server's packets leave the connection id out (alice reads bob's
 * address only), but their tag still binds it: alice opens bob's reply, a
 * client of another connection under the same keys does not. */
static void test_server_packets_bind_id(void)
{
    uint8_t packet[ZL_MAX_PACKET], copy[ZL_MAX_PACKET];
    zl_conn other;
    zl_conn_datagram d;
    zl_sender out = {&wire, capture_send};
    int len;
    connect_pair(1);
    memcpy(packet + ZL_PACKET_HEADER_SIZE, "ok", 2);
    len = zl_conn_send(&bob, ZL_MSG_SNAPSHOT, packet, 2, 1000);
    ZL_CHECK_EQ(len, ZL_PACKET_HEADER_SIZE - 4 + 2 + ZL_PACKET_TAG_SIZE);
    ZL_CHECK_EQ(wire.data[0], ZL_MSG_SNAPSHOT);
    zl_conn_init(&other, &out, &bob.peer, 78);
    zl_conn_start_link(&other, 0);
    zl_conn_seal_with(&other, key_a, key_b, NULL, 0);
    memcpy(copy, wire.data, wire.len);
    ZL_CHECK(zl_conn_open(&other, 1, copy, wire.len, &d) < 0);
    memcpy(copy, wire.data, wire.len);
    ZL_CHECK_EQ(zl_conn_open(&alice, 1, copy, wire.len, &d), ZL_CONN_LINKED);
    ZL_CHECK_EQ(d.payload_len, 2);
    ZL_CHECK(memcmp(d.payload, "ok", 2) == 0);
    ZL_CHECK_EQ(d.h.type, ZL_MSG_SNAPSHOT);
}

/* The 16-bit sequence on the wire widens to the right 64-bit nonce across
 * wraps, in both directions around the newest. */
static void test_sequence_widening(void)
{
    ZL_CHECK_EQ(zl_packet_widen(5, 0), 5);
    ZL_CHECK_EQ(zl_packet_widen(0xFFFF, 0x10002u), 0xFFFFu);
    ZL_CHECK_EQ(zl_packet_widen(2, 0xFFFEu), 0x10002u);
    ZL_CHECK_EQ(zl_packet_widen(0x1234, 0x51234u), 0x51234u);
    ZL_CHECK_EQ(zl_packet_widen(0x9000, 0x50000u), 0x49000u);
    ZL_CHECK_EQ(zl_packet_widen(0x6F00, 0x5F000u), 0x66F00u);
    /* Sealed traffic across the 16-bit wrap keeps opening. */
    {
        uint8_t copy[ZL_MAX_PACKET];
        zl_conn_datagram d;
        uint32_t i;
        int ok = 1;
        connect_pair(1);
        for (i = 0; i < 70000u; i++) {
            alice_sends("x");
            memcpy(copy, wire.data, wire.len);
            ok &= bob_takes(copy, wire.len, &d) == ZL_CONN_LINKED;
        }
        ZL_CHECK(ok);
        ZL_CHECK_EQ(bob.receive_newest, 69999u);
    }
}

/* ---- A server that admits only token holders (the match harness) ---- */

static void test_token_match_joins_sealed(void)
{
    zl_match_setup s;
    int i;
    memset(&s, 0, sizeof s);
    s.rtt_us = 100000u;
    s.lag_compensation = 1;
    zl_match_start(&s);
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    for (i = 0; i < ZL_MATCH_BOTS; i++) {
        int slot = zl_client_slot(&zl_match_world.client[i]);
        const uint8_t *user = zl_server_user_data(&zl_match_world.server, slot);
        ZL_CHECK(zl_match_world.client[i].conn.sealed);
        ZL_CHECK(zl_match_world.server.slot[slot].conn.sealed);
        ZL_CHECK_EQ(zl_server_client_id(&zl_match_world.server, slot), 1000u + (uint64_t)i);
        ZL_CHECK(user != NULL && user[0] == 'a' + i && user[ZL_TOKEN_USER_DATA - 1] == 'a' + i);
        ZL_CHECK(zl_match_world.server.slot[slot].conn.link.stats.packets_received > 50u);
        /* Both ends count what they sealed and opened: every packet. */
        {
            zl_server_client_stats ss;
            zl_client_stats cs;
            ZL_CHECK_EQ(zl_server_get_client_stats(&zl_match_world.server, slot, zl_test_time_us,
                                                   &ss),
                        ZL_OK);
            zl_client_get_stats(&zl_match_world.client[i], zl_test_time_us, &cs);
            ZL_CHECK(ss.seal.opened > 50u && ss.seal.sealed > 50u);
            ZL_CHECK(ss.seal.opened >= ss.link.packets_received);
            ZL_CHECK_EQ(cs.seal.sealed, cs.link.packets_sent);
            ZL_CHECK_EQ(ss.seal.forged + cs.seal.forged, 0);
        }
    }
}

/* Sends a TOKEN_REQUEST (or a plain REQUEST when token is NULL) to the
 * match's server from `from`. */
static void request_from(const zl_addr *from, const zl_connect_token *token)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_TOKEN_REQUEST_SIZE];
    int n;
    if (token) {
        zl_msg_token_request m;
        memset(&m, 0, sizeof m);
        m.protocol_id = ZL_PROTOCOL_ID;
        m.nonce = 99;
        zl_client_settings_default(&m.settings);
        m.token.expire_s = token->expire_s;
        memcpy(m.token.nonce, token->nonce, sizeof m.token.nonce);
        memcpy(m.token.sealed, token->sealed, sizeof m.token.sealed);
        n = zl_msg_write(ZL_MSG_TOKEN_REQUEST, packet + ZL_PACKET_HEADER_SIZE,
                         ZL_TOKEN_REQUEST_SIZE, &m);
        n = zl_conn_seal_unlinked(packet, (size_t)n, ZL_MSG_TOKEN_REQUEST);
    } else {
        zl_msg_request m;
        m.protocol_id = ZL_PROTOCOL_ID;
        m.nonce = 99;
        zl_client_settings_default(&m.settings);
        n = zl_msg_write(ZL_MSG_REQUEST, packet + ZL_PACKET_HEADER_SIZE, ZL_REQUEST_SIZE, &m);
        n = zl_conn_seal_unlinked(packet, (size_t)n, ZL_MSG_REQUEST);
    }
    ZL_CHECK(n > 0);
    zl_server_receive(&zl_match_world.server, from, packet, (size_t)n, zl_test_time_us);
}

static uint32_t drops(int why)
{
    uint32_t d[ZL_SERVER_DROP_COUNT];
    zl_server_get_drops(&zl_match_world.server, d);
    return d[why];
}

/* Expired, foreign, forged and reused tokens and plain requests are refused
 * and counted; nothing is allocated for them and the bots play on. */
static void test_server_refuses_bad_tokens(void)
{
    zl_match_setup s;
    zl_connect_token t;
    zl_token_grant g;
    zl_addr stranger = zl_addr_ipv4(10, 9, 9, 9, 4444);
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    memset(&s, 0, sizeof s);
    s.rtt_us = 50000u;
    s.lag_compensation = 1;
    zl_match_start(&s);
    zl_match_run(1500000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    /* Bot 0's token again, from another address. */
    zl_match_mint(0, &t);
    request_from(&stranger, &t);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_REUSED), 1);
    /* Expired. */
    memset(&g, 0, sizeof g);
    g.address_count = 1;
    g.addresses[0] = zl_match_world.server_addr;
    memset(nonce, 0x77, sizeof nonce);
    ZL_CHECK_EQ(zl_token_mint(&t, &g, ZL_MATCH_UNIX_S - 100u, ZL_MATCH_UNIX_S - 1u, nonce,
                              zl_match_key),
                ZL_OK);
    request_from(&stranger, &t);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_EXPIRED), 1);
    /* For another server. */
    g.addresses[0] = zl_addr_ipv4(10, 0, 0, 2, 27015);
    ZL_CHECK_EQ(zl_token_mint(&t, &g, ZL_MATCH_UNIX_S, ZL_MATCH_UNIX_S + 60u, nonce, zl_match_key),
                ZL_OK);
    request_from(&stranger, &t);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_FOREIGN), 1);
    /* Minted with another key. */
    g.addresses[0] = zl_match_world.server_addr;
    ZL_CHECK_EQ(zl_token_mint(&t, &g, ZL_MATCH_UNIX_S, ZL_MATCH_UNIX_S + 60u, nonce, key_b), ZL_OK);
    request_from(&stranger, &t);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_FORGED), 1);
    /* Garbage claiming an expiry in the past: refused on the expiry it
     * carries in clear, before any decryption (opened, it would count as
     * forged). */
    memset(&t, 0x5C, sizeof t);
    t.expire_s = ZL_MATCH_UNIX_S - 1u;
    stranger = zl_addr_ipv4(10, 9, 9, 11, 4446);
    request_from(&stranger, &t);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_EXPIRED), 2);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_FORGED), 1);
    /* No token at all: told so (from another address: the stranger has
     * spent its 4 requests a second). */
    stranger = zl_addr_ipv4(10, 9, 9, 10, 4445);
    request_from(&stranger, NULL);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_PLAIN), 1);
    zl_match_run(1000000u);
    ZL_CHECK_EQ(zl_server_client_count(&zl_match_world.server), ZL_MATCH_BOTS);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
}

/* A server behind a fleet's port mapping learns its public address late:
 * a token naming it is foreign until zl_server_set_public_addresses, then
 * passes; bad address lists are refused and change nothing. */
static void test_public_address_learned(void)
{
    zl_match_setup s;
    zl_connect_token t;
    zl_token_grant g;
    zl_addr public_addr = zl_addr_ipv4(203, 0, 113, 5, 7031), none;
    zl_addr first = zl_addr_ipv4(10, 9, 8, 1, 5000), second = zl_addr_ipv4(10, 9, 8, 2, 5000);
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    memset(&s, 0, sizeof s);
    s.rtt_us = 50000u;
    zl_match_start(&s);
    zl_match_run(500000u);
    memset(&g, 0, sizeof g);
    g.address_count = 1;
    g.addresses[0] = public_addr;
    memset(nonce, 0xE7, sizeof nonce); /* no bot's (zl_match_mint) */
    ZL_CHECK_EQ(zl_token_mint(&t, &g, ZL_MATCH_UNIX_S, ZL_MATCH_UNIX_S + 60u, nonce, zl_match_key),
                ZL_OK);
    request_from(&first, &t);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_FOREIGN), 1);
    memset(&none, 0, sizeof none);
    ZL_CHECK_EQ(zl_server_set_public_addresses(&zl_match_world.server, &none, 1), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_server_set_public_addresses(&zl_match_world.server, &public_addr, 0),
                ZL_ERR_INVALID);
    request_from(&second, &t);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_FOREIGN), 2);
    ZL_CHECK_EQ(zl_server_set_public_addresses(&zl_match_world.server, &public_addr, 1), ZL_OK);
    second.port++;
    request_from(&second, &t);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_FOREIGN), 2);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_FORGED), 0);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_EXPIRED), 0);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_TOKEN_REUSED), 0);
    ZL_CHECK_EQ(drops(ZL_SERVER_DROP_RATE), 0);
}

/* Hands client 0 a handshake reply of type with the payload_bytes at
 * packet + ZL_PACKET_HEADER_SIZE, as if from the server. */
static void forge_reply(uint8_t type, uint8_t *packet, int payload_bytes)
{
    int n = zl_conn_seal_unlinked(packet, (size_t)payload_bytes, type);
    ZL_CHECK(n > 0);
    zl_client_receive(&zl_match_world.client[0], &zl_match_world.server_addr, packet, (size_t)n,
                      zl_test_time_us);
}

/* Someone on the path saw the client's nonce and the server's cookie but
 * holds no token: the CHALLENGE and ACCEPT it forges, untagged or tagged
 * under another key, are dropped, and the client connects as usual. */
static void test_forged_replies_ignored(void)
{
    zl_match_setup s;
    zl_client *c = &zl_match_world.client[0];
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_ACCEPT_SIZE + ZL_PACKET_TAG_SIZE];
    uint8_t *payload = packet + ZL_PACKET_HEADER_SIZE;
    uint8_t nonce[ZL_XAEAD_NONCE_SIZE];
    zl_client_stats st;
    zl_msg_challenge ch;
    zl_msg_accept ac;
    uint32_t bad;
    int n, waited;
    memset(&s, 0, sizeof s);
    s.rtt_us = 100000u;
    zl_match_start(&s);
    ZL_CHECK_EQ(zl_client_state(c), ZL_CLIENT_REQUESTING);
    ch.nonce = c->conn.nonce;
    ch.window = 1;
    ch.cookie = 42;
    n = zl_msg_write(ZL_MSG_CHALLENGE, payload, ZL_CHALLENGE_SIZE, &ch);
    forge_reply(ZL_MSG_CHALLENGE, packet, n);
    zl_conn_reply_nonce(nonce, ZL_MSG_CHALLENGE, ch.cookie, 0);
    n = zl_msg_write(ZL_MSG_CHALLENGE, payload, ZL_CHALLENGE_SIZE, &ch);
    forge_reply(ZL_MSG_CHALLENGE, packet, zl_conn_tag_reply(payload, n, key_b, nonce));
    ZL_CHECK_EQ(zl_client_state(c), ZL_CLIENT_REQUESTING);
    zl_client_get_stats(c, zl_test_time_us, &st);
    ZL_CHECK_EQ(st.bad_messages, 2);
    /* The real challenge, tagged, moves it on. */
    for (waited = 0; waited < 1000 && zl_client_state(c) == ZL_CLIENT_REQUESTING; waited++)
        zl_match_run(1000u);
    ZL_CHECK_EQ(zl_client_state(c), ZL_CLIENT_RESPONDING);
    ac.nonce = c->conn.nonce;
    ac.slot = 5;
    ac.tick_rate = 64;
    ac.server_tick = 1;
    zl_client_settings_default(&ac.settings);
    zl_client_get_stats(c, zl_test_time_us, &st);
    bad = st.bad_messages;
    n = zl_msg_write(ZL_MSG_ACCEPT, payload, ZL_ACCEPT_SIZE, &ac);
    forge_reply(ZL_MSG_ACCEPT, packet, n);
    zl_conn_reply_nonce(nonce, ZL_MSG_ACCEPT, c->cookie, ac.server_tick);
    n = zl_msg_write(ZL_MSG_ACCEPT, payload, ZL_ACCEPT_SIZE, &ac);
    forge_reply(ZL_MSG_ACCEPT, packet, zl_conn_tag_reply(payload, n, key_b, nonce));
    ZL_CHECK_EQ(zl_client_state(c), ZL_CLIENT_RESPONDING);
    zl_client_get_stats(c, zl_test_time_us, &st);
    ZL_CHECK_EQ(st.bad_messages, bad + 2u);
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
}

/* A flood of connection requests (no token, or garbage in place of one)
 * from 254 addresses while the bots join: only token holders get a slot, so
 * every bot gets in. */
static void test_honest_join_during_flood(void)
{
    zl_match_setup s;
    zl_connect_token junk;
    uint32_t t;
    memset(&s, 0, sizeof s);
    s.rtt_us = 100000u;
    s.lag_compensation = 1;
    zl_match_start(&s);
    memset(&junk, 0x5C, sizeof junk);
    junk.expire_s = ZL_MATCH_UNIX_S + 60u;
    for (t = 0; t < 2000u; t++) {
        zl_addr a = zl_addr_ipv4(172, 16, (uint8_t)(t % 254u + 1u), 1, (uint16_t)(2000u + t));
        request_from(&a, t % 2u ? &junk : NULL);
        zl_match_run(1000u);
    }
    zl_test_note("2000 requests in 2 s from 254 addresses: %u refused for no token, %u forged, "
                 "%u rate limited; %d of %d bots joined",
                 drops(ZL_SERVER_DROP_PLAIN), drops(ZL_SERVER_DROP_TOKEN_FORGED),
                 drops(ZL_SERVER_DROP_RATE), zl_match_connected(), ZL_MATCH_BOTS);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    ZL_CHECK_EQ(zl_server_client_count(&zl_match_world.server), ZL_MATCH_BOTS);
    ZL_CHECK(drops(ZL_SERVER_DROP_PLAIN) + drops(ZL_SERVER_DROP_TOKEN_FORGED) +
                 drops(ZL_SERVER_DROP_RATE) >= 2000u);
}

/* Someone on the path replays every datagram bot 0 sends, 5 times, from
 * bot 0's own address: the replays fail the link's replay check before they
 * are charged to bot 0's allowance, so it loses nothing. */
static void test_replayer_costs_victim_nothing(void)
{
    zl_match_setup s;
    zl_server_client_stats victim, other;
    memset(&s, 0, sizeof s);
    s.rtt_us = 100000u;
    s.lag_compensation = 1;
    s.replays = 5;
    zl_match_start(&s);
    zl_match_run(6000000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    ZL_CHECK_EQ(zl_server_get_client_stats(&zl_match_world.server,
                                           zl_client_slot(&zl_match_world.client[0]),
                                           zl_test_time_us, &victim),
                ZL_OK);
    ZL_CHECK_EQ(zl_server_get_client_stats(&zl_match_world.server,
                                           zl_client_slot(&zl_match_world.client[1]),
                                           zl_test_time_us, &other),
                ZL_OK);
    zl_test_note("%u replays: victim flooded %u, refused as duplicates %u, commands lost %u; "
                 "received %u commands (another bot: %u)",
                 zl_match_world.replayed, victim.flooded,
                 victim.link.dropped[ZL_PACKET_DROP_DUPLICATE], victim.commands.lost,
                 victim.commands.received, other.commands.received);
    ZL_CHECK(zl_match_world.replayed > 1000u);
    ZL_CHECK_EQ(victim.flooded, 0);
    ZL_CHECK_EQ(victim.commands.lost, 0);
    ZL_CHECK(victim.link.dropped[ZL_PACKET_DROP_DUPLICATE] >= zl_match_world.replayed * 9u / 10u);
    ZL_CHECK(10u * victim.commands.received >= 9u * other.commands.received);
}

/* Plays on, handing the server what arrives, until a datagram from `who`
 * comes: a copy of it (as captured, before decryption) goes into out. */
static size_t capture_from(const zl_addr *who, uint8_t out[ZL_MAX_PACKET])
{
    size_t len = 0;
    while (!len) {
        uint8_t buf[ZL_MAX_PACKET];
        zl_addr from;
        int n;
        while ((n = zl_match_world.server_hal.receive(zl_match_world.server_hal.ctx, &from, buf,
                                                      sizeof buf)) >= 0) {
            if (!len && zl_addr_equal(&from, who)) {
                memcpy(out, buf, (size_t)n);
                len = (size_t)n;
            }
            zl_server_receive(&zl_match_world.server, &from, buf, (size_t)n, zl_test_time_us);
        }
        zl_match_run(1000u);
    }
    return len;
}

/* Bot 0's NAT gives it a new port in mid-match: its next sealed packet
 * authenticates from the new address, the connection moves there, and it
 * plays on; a replay of an old packet from a third address moves nothing. */
static void test_rebinding_client_plays_on(void)
{
    static uint8_t captured[ZL_MAX_PACKET];
    size_t captured_len;
    zl_match_setup s;
    zl_server_client_stats before, after;
    zl_addr old_addr, new_addr, any;
    int slot;
    memset(&s, 0, sizeof s);
    s.rtt_us = 80000u;
    s.lag_compensation = 1;
    zl_match_start(&s);
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    slot = zl_client_slot(&zl_match_world.client[0]);
    old_addr = zl_loopnet_address(&zl_match_world.client_ep[0]);
    /* Keep a copy of one of bot 0's packets as an attacker would. */
    captured_len = capture_from(&old_addr, captured);
    zl_server_get_client_stats(&zl_match_world.server, slot, zl_test_time_us, &before);
    zl_loopnet_close(&zl_match_world.client_ep[0]);
    zl_addr_parse(&any, "10.0.1.1:0");
    ZL_CHECK_EQ(zl_loopnet_open(&zl_match_world.net, &zl_match_world.client_ep[0], &any,
                                &zl_match_world.client_raw[0]),
                ZL_OK);
    new_addr = zl_loopnet_address(&zl_match_world.client_ep[0]);
    ZL_CHECK(!zl_addr_equal(&old_addr, &new_addr));
    zl_match_run(4000000u);
    ZL_CHECK_EQ(zl_server_get_client_stats(&zl_match_world.server, slot, zl_test_time_us, &after),
                ZL_OK);
    zl_test_note("port %u -> %u: %u move, %u more commands run, client state %d",
                 (unsigned)old_addr.port, (unsigned)new_addr.port, after.moves,
                 after.executed - before.executed, zl_client_state(&zl_match_world.client[0]));
    ZL_CHECK_EQ(after.moves, 1);
    ZL_CHECK(zl_addr_equal(&zl_match_world.server.slot[slot].conn.peer, &new_addr));
    {
        zl_addr third = zl_addr_ipv4(10, 7, 7, 7, 7777);
        zl_server_receive(&zl_match_world.server, &third, captured, captured_len,
                          zl_test_time_us);
        ZL_CHECK(zl_addr_equal(&zl_match_world.server.slot[slot].conn.peer, &new_addr));
        zl_server_get_client_stats(&zl_match_world.server, slot, zl_test_time_us, &after);
        ZL_CHECK_EQ(after.moves, 1);
    }
    ZL_CHECK_EQ(zl_client_state(&zl_match_world.client[0]), ZL_CLIENT_CONNECTED);
    ZL_CHECK(after.executed - before.executed > 400u); /* 4 s at 125 commands/s */
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
}

/* A stranger replays one of bot 0's captured packets from its own
 * address, 50 times 10 ms apart: each copy is counted once, as a replay of
 * bot 0's connection, and nothing else (no server-wide drop, no move).
 * Faster, the copies beyond that address's tries are counted as such
 * (path_limited), unread. */
static void test_replay_from_elsewhere_counted_once(void)
{
    static uint8_t captured[ZL_MAX_PACKET], copy[ZL_MAX_PACKET];
    size_t captured_len;
    zl_match_setup s;
    zl_server_client_stats before, after;
    uint32_t drops_before[ZL_SERVER_DROP_COUNT], drops_after[ZL_SERVER_DROP_COUNT];
    zl_addr victim, stranger = zl_addr_ipv4(10, 7, 7, 7, 7777);
    int slot, k, other = 0;
    memset(&s, 0, sizeof s);
    s.rtt_us = 80000u;
    zl_match_start(&s);
    zl_match_run(2000000u);
    slot = zl_client_slot(&zl_match_world.client[0]);
    victim = zl_loopnet_address(&zl_match_world.client_ep[0]);
    captured_len = capture_from(&victim, captured);
    zl_match_run(100000u);
    zl_server_get_client_stats(&zl_match_world.server, slot, zl_test_time_us, &before);
    zl_server_get_drops(&zl_match_world.server, drops_before);
    for (k = 0; k < 50; k++) {
        memcpy(copy, captured, captured_len);
        zl_server_receive(&zl_match_world.server, &stranger, copy, captured_len,
                          zl_test_time_us);
        zl_match_run(10000u);
    }
    zl_server_get_client_stats(&zl_match_world.server, slot, zl_test_time_us, &after);
    zl_server_get_drops(&zl_match_world.server, drops_after);
    for (k = 0; k < ZL_SERVER_DROP_COUNT; k++)
        other += (int)(drops_after[k] - drops_before[k]);
    zl_test_note("50 replays from a stranger: %u counted as replays, %d server drops, %u moves",
                 after.seal.replayed - before.seal.replayed, other, after.moves);
    ZL_CHECK_EQ(after.seal.replayed - before.seal.replayed, 50);
    ZL_CHECK_EQ(other, 0);
    ZL_CHECK_EQ(after.seal.forged, before.seal.forged);
    ZL_CHECK_EQ(after.moves, 0);
}

/* What bot 0's link lost both ways over a match (percent of packets). */
static double victim_loss_percent(void)
{
    zl_client_stats st;
    zl_server_client_stats sv;
    double lost, all;
    zl_client_get_stats(&zl_match_world.client[0], zl_test_time_us, &st);
    if (zl_server_get_client_stats(&zl_match_world.server,
                                   zl_client_slot(&zl_match_world.client[0]), zl_test_time_us,
                                   &sv) != ZL_OK)
        return 100.0;
    lost = (double)st.link.packets_lost_in + sv.link.packets_lost_in;
    all = lost + st.link.packets_received + sv.link.packets_received;
    return all > 0 ? 100.0 * lost / all : 100.0;
}

/* Runs 6 s of bot 0 playing, raced (zl_match_setup.race) or not; its
 * loss, its commands run and its server stats. */
static double race_match(int race, uint32_t *executed, zl_server_client_stats *sv)
{
    zl_match_setup s;
    memset(&s, 0, sizeof s);
    s.rtt_us = 100000u;
    s.lag_compensation = 1;
    s.race = race;
    zl_match_start(&s);
    zl_match_run(6000000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    ZL_CHECK_EQ(zl_server_get_client_stats(&zl_match_world.server,
                                           zl_client_slot(&zl_match_world.client[0]),
                                           zl_test_time_us, sv),
                ZL_OK);
    *executed = sv->executed;
    return victim_loss_percent();
}

/* Someone who reads bot 0's traffic (not drops it) sends a copy of each
 * fresh packet from another address ahead of the original, and passes
 * the server's replies to that address on to bot 0: the copies
 * authenticate, but bot 0's address never goes silent, so the
 * connection stays where it is and bot 0 plays as on a quiet link. */
static void test_raced_copies_move_nothing(void)
{
    zl_server_client_stats quiet_sv, raced_sv;
    uint32_t quiet_run, raced_run;
    double quiet = race_match(0, &quiet_run, &quiet_sv), raced;
    zl_addr victim_addr;
    raced = race_match(1, &raced_run, &raced_sv);
    victim_addr = zl_loopnet_address(&zl_match_world.client_ep[0]);
    zl_test_note("raced copies: %u sent ahead, %u relayed; loss %.2f%% (quiet %.2f%%), "
                 "%u commands run (quiet %u), %u moves, %u challenges, %u refused",
                 zl_match_world.raced, zl_match_world.relayed, raced, quiet, raced_run,
                 quiet_run, raced_sv.moves, raced_sv.path_challenges, raced_sv.moves_refused);
    ZL_CHECK(zl_match_world.raced > 300u);
    ZL_CHECK_EQ(raced_sv.moves, 0);
    ZL_CHECK(zl_addr_equal(
        &zl_match_world.server.slot[zl_client_slot(&zl_match_world.client[0])].conn.peer,
        &victim_addr));
    ZL_CHECK(raced <= quiet + 1.0);
    ZL_CHECK(10u * raced_run >= 9u * quiet_run);
}

/* Bot 0 rebinds while junk carrying its connection id pours in from 64
 * ports, eight datagrams ahead of each of its own: the junk spends only
 * its own addresses' tries, and bot 0 moves within a second. */
static void test_rebind_through_id_flood(void)
{
    zl_match_setup s;
    zl_server_client_stats st;
    zl_addr any, new_addr;
    uint32_t ms;
    int slot;
    memset(&s, 0, sizeof s);
    s.rtt_us = 80000u;
    zl_match_start(&s);
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    slot = zl_client_slot(&zl_match_world.client[0]);
    zl_loopnet_close(&zl_match_world.client_ep[0]);
    zl_addr_parse(&any, "10.0.1.1:0");
    ZL_CHECK_EQ(zl_loopnet_open(&zl_match_world.net, &zl_match_world.client_ep[0], &any,
                                &zl_match_world.client_raw[0]),
                ZL_OK);
    new_addr = zl_loopnet_address(&zl_match_world.client_ep[0]);
    zl_match_world.junk_ahead = 8;
    for (ms = 0; ms < 1000u && !zl_addr_equal(&zl_match_world.server.slot[slot].conn.peer,
                                               &new_addr);
         ms++)
        zl_match_run(1000u);
    zl_server_get_client_stats(&zl_match_world.server, slot, zl_test_time_us, &st);
    zl_test_note("rebind under %u datagrams of junk with its id from 64 ports: moved after %u ms, "
                 "%u forged, %u over their tries",
                 zl_match_world.junked, (unsigned)ms, st.seal.forged, st.path_limited);
    ZL_CHECK(zl_match_world.junked > 100u);
    ZL_CHECK(ms < 1000u);
    ZL_CHECK_EQ(st.moves, 1);
    /* Each junk datagram counted once; bot 0's own never over its tries. */
    ZL_CHECK_EQ(st.seal.forged, zl_match_world.junked);
    ZL_CHECK_EQ(st.path_limited, 0);
    zl_match_world.junk_ahead = 0;
    zl_match_run(1000000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
}

void zl_suite_token(void)
{
    ZL_RUN(test_token_round_trip);
    ZL_RUN(test_token_refusals);
    ZL_RUN(test_token_cache);
    ZL_RUN(test_sealed_packets);
    ZL_RUN(test_server_packets_bind_id);
    ZL_RUN(test_sequence_widening);
    ZL_RUN(test_token_match_joins_sealed);
    ZL_RUN(test_server_refuses_bad_tokens);
    ZL_RUN(test_public_address_learned);
    ZL_RUN(test_forged_replies_ignored);
    ZL_RUN(test_honest_join_during_flood);
    ZL_RUN(test_replayer_costs_victim_nothing);
    ZL_RUN(test_rebinding_client_plays_on);
    ZL_RUN(test_raced_copies_move_nothing);
    ZL_RUN(test_replay_from_elsewhere_counted_once);
    ZL_RUN(test_rebind_through_id_flood);
}
