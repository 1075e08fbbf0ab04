/* test_batch.c - zl_server_receive_many against zl_server_receive, and
 * snapshots sealed side by side against one by one: the same traffic,
 * hostile datagrams mixed in, leaves the same server and datagrams. */
#include <string.h>

#include "zl_crc32.h"
#include "zl_print.h"
#include "zl_sim.h"
#include "zl_test.h"

#if ZL_SIM_AVAILABLE

#define CLIENTS 8
#define RUN_US 3000000u
/* The network holds the clients' datagrams and lets them through this many
 * at a time, so a step hands the server a batch wider than a pass. */
#define HOLD 11

static zl_sim *const S = &zl_sim_world;

typedef struct held {
    int client;
    uint16_t len;
    uint8_t data[ZL_MAX_PACKET];
} held;

/* The network's state in one run: what it holds, its random numbers,
 * and what it did to the datagrams. */
static struct {
    held hold[HOLD];
    int count;
    zl_test_rng rng;
    uint32_t replayed, truncated, flipped, strangers, garbage;
} net;

static int walker(zl_sim *sim, int i, zl_usercmd *cmd)
{
    uint32_t f = (uint32_t)(zl_test_time_us / ZL_SIM_FRAME_US);
    (void)sim;
    cmd->msec = (uint16_t)(ZL_SIM_FRAME_US / 1000u);
    cmd->forward = 127;
    cmd->yaw = (zl_angle)(f * (300u + 50u * (uint32_t)i));
    cmd->buttons = (uint8_t)(f % 7u == 0u);
    return 1;
}

/* Each held datagram goes through, and after it now and then a hostile
 * one: a replay of it, a cut copy, a copy with a byte changed, a copy from
 * an address no client has, or random bytes from its sender. */
static void let_through(zl_sim *sim)
{
    uint8_t copy[ZL_MAX_PACKET];
    int k;
    for (k = 0; k < net.count; k++) {
        held *h = &net.hold[k];
        uint32_t r = zl_test_rng_u32(&net.rng);
        zl_addr stranger = zl_addr_ipv4(10, 9, 9, (uint8_t)(r >> 8), 40000);
        zl_sim_deliver(sim, h->client, h->data, h->len);
        memcpy(copy, h->data, h->len);
        switch (r % 10u) {
        case 0:
            zl_sim_deliver(sim, h->client, copy, h->len);
            net.replayed++;
            break;
        case 1:
            zl_sim_deliver(sim, h->client, copy, 1u + (r >> 16) % h->len);
            net.truncated++;
            break;
        case 2:
            copy[(r >> 16) % h->len] ^= (uint8_t)(1u << (r >> 12) % 8u);
            zl_sim_deliver(sim, h->client, copy, h->len);
            net.flipped++;
            break;
        case 3:
            zl_sim_deliver_from(sim, &stranger, copy, h->len);
            net.strangers++;
            break;
        case 4: {
            size_t i, n = 1u + (r >> 16) % 80u;
            for (i = 0; i < n; i++)
                copy[i] = (uint8_t)zl_test_rng_u32(&net.rng);
            zl_sim_deliver(sim, h->client, copy, n);
            net.garbage++;
            break;
        }
        default:
            break;
        }
    }
    net.count = 0;
}

static void hold_back(zl_sim *sim, int i, uint8_t *data, size_t len)
{
    held *h = &net.hold[net.count++];
    h->client = i;
    h->len = (uint16_t)len;
    memcpy(h->data, data, len);
    if (net.count == HOLD)
        let_through(sim);
}

/* What a run leaves: the server's whole state, everything it sent (in
 * order), and what it counted. */
typedef struct outcome {
    uint32_t server_crc, sent_digest, received, ticks, connected;
    uint32_t batched; /* 1: a snapshot waited in the batch's last place */
    uint32_t dropped[ZL_SERVER_DROP_COUNT];
    zl_seal_stats seal[CLIENTS];
} outcome;

/* A run on ChaCha20 path `widest` (zl_chacha20_limit): the words path
 * seals and opens each packet alone, the vector paths several together. */
static void run(int drain_many, int widest, outcome *out)
{
    size_t k;
    int i;
    zl_chacha20_limit(widest);
    memset(&net, 0, sizeof net);
    zl_test_rng_seed(&net.rng, 36);
    zl_sim_init(S, CLIENTS, NULL, NULL, 36);
    S->drain_many = (uint8_t)drain_many;
    for (i = 0; i < CLIENTS; i++) {
        S->c[i].outbound = hold_back;
        zl_sim_join(S, i, walker);
    }
    zl_sim_run(S, RUN_US);
    zl_chacha20_limit(ZL_CHACHA20_WIDEST);
    memset(out, 0, sizeof *out);
    /* The batch's buffers keep its last packets: not state once sent. */
    for (k = 0; k < sizeof S->server.seals.packet[0]; k++)
        out->batched |= S->server.seals.packet[ZL_SERVER_SEALS - 1][k] != 0;
    memset(&S->server.seals, 0, sizeof S->server.seals);
    /* The server's two copies of the game's interface hold the padding
     * of a struct returned by value: the stack's leftovers, not state.
     * The run is over, so they are cleared before the whole is summed. */
    memset(&S->server.game, 0, sizeof S->server.game);
    memset(&S->server.lagcomp.game, 0, sizeof S->server.lagcomp.game);
    out->server_crc = zl_crc32_update(0, &S->server, sizeof S->server);
    out->sent_digest = S->sent_digest;
    out->received = S->received;
    out->ticks = S->ticks;
    memcpy(out->dropped, S->server.dropped, sizeof out->dropped);
    for (i = 0; i < CLIENTS; i++) {
        zl_server_client_stats st;
        if (zl_sim_server_stats(S, i, &st) == ZL_OK) {
            out->connected++;
            out->seal[i] = st.seal;
        }
    }
}

static void test_batch_same_as_one_by_one(void)
{
    static outcome one, many;
    uint32_t forged = 0, replays = 0;
    int i;
    run(0, ZL_CHACHA20_WIDEST, &one);
    run(1, ZL_CHACHA20_WIDEST, &many);
    zl_test_note("%u datagrams: %u replayed, %u cut, %u changed, %u from strangers, %u garbage",
                 (unsigned)many.received, (unsigned)net.replayed, (unsigned)net.truncated,
                 (unsigned)net.flipped, (unsigned)net.strangers, (unsigned)net.garbage);
    /* The traffic was what the test says: everyone connected through it,
     * and each kind of hostile datagram came often. */
    ZL_CHECK_EQ(many.connected, CLIENTS);
    ZL_CHECK(net.replayed > 50 && net.truncated > 50 && net.flipped > 50);
    ZL_CHECK(net.strangers > 50 && net.garbage > 50);
    for (i = 0; i < CLIENTS; i++) {
        forged += many.seal[i].forged;
        replays += many.seal[i].replayed;
    }
    ZL_CHECK(forged > 0 && replays > 0);
    ZL_CHECK(many.dropped[ZL_SERVER_DROP_PACKET] > 0);
    /* And both ways of taking it left the same server. */
    ZL_CHECK_EQ(many.received, one.received);
    ZL_CHECK_EQ(many.ticks, one.ticks);
    ZL_CHECK_EQ(many.sent_digest, one.sent_digest);
    ZL_CHECK(memcmp(many.dropped, one.dropped, sizeof one.dropped) == 0);
    ZL_CHECK(memcmp(many.seal, one.seal, sizeof one.seal) == 0);
    ZL_CHECK_EQ(many.server_crc, one.server_crc);
}

/* Snapshots sealed side by side (eight clients: a full batch a tick)
 * and sealed one by one on the words path: the same datagrams in the same
 * order, the same server. */
static void test_batch_seals_same_as_one_by_one(void)
{
    static outcome one, many;
    int widest = zl_chacha20_limit(ZL_CHACHA20_WIDEST);
    run(1, ZL_CHACHA20_WORDS, &one);
    run(1, ZL_CHACHA20_WIDEST, &many);
    zl_test_note("%u ticks, datagrams sent digest 0x%08x; ChaCha20 path %d, %u lanes",
                 (unsigned)many.ticks, (unsigned)many.sent_digest, widest,
                 (unsigned)zl_aead_ahead_lanes());
    ZL_CHECK_EQ(many.connected, CLIENTS);
    ZL_CHECK_EQ(one.batched, 0);
    /* Side by side only where the path has lanes. */
    ZL_CHECK_EQ(many.batched, ZL_SERVER_SEALS > 1 && zl_aead_ahead_lanes() > 1);
    ZL_CHECK_EQ(many.ticks, one.ticks);
    ZL_CHECK_EQ(many.received, one.received);
    ZL_CHECK_EQ(many.sent_digest, one.sent_digest);
    ZL_CHECK(memcmp(many.seal, one.seal, sizeof one.seal) == 0);
    ZL_CHECK_EQ(many.server_crc, one.server_crc);
}

void zl_suite_batch(void)
{
    ZL_RUN(test_batch_same_as_one_by_one);
    ZL_RUN(test_batch_seals_same_as_one_by_one);
}

#else

void zl_suite_batch(void)
{
    zl_print("  batch left out: no room for a server in this image (zl_sim.h)\n");
}

#endif
