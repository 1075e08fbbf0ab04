/* fuzz_block.c - libFuzzer harness for blocks: hostile sections into a
 * receiver, hostile acks and budgets into a sender whose sections a peer reads. */
/* FUZZ_FLAGS: -DZL_BLOCK_MAX=4096 -DZL_BLOCK_CHUNK=16 -DZL_BLOCK_PACKETS=8
 * FUZZ_MAX_LEN: 1024
 * (tools/fuzz.sh passes them: 256 chunks and a window of 8 packets reach
 * every edge, a full window and the last short chunk, in small inputs.) */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_block.h"
#include "zl_protocol.h"

#define RX_CAPACITY 3000u

static zl_blocks rx, tx, peer;
static uint8_t rx_buffer[RX_CAPACITY], peer_buffer[ZL_BLOCK_MAX], pattern[ZL_BLOCK_MAX];
static zl_link tx_link;

/* What a receiver promises whatever arrived: counts within the block and
 * its buffer, a complete block no larger than the buffer. */
static void check_receiver(const zl_blocks *b, uint32_t capacity)
{
    zl_block_status st;
    const uint8_t *data;
    int n;
    zl_blocks_progress(b, NULL, &st);
    REQUIRE(st.done <= st.total && st.total <= capacity);
    n = zl_blocks_received(b, &data);
    REQUIRE(n == ZL_ERR_AGAIN || (n > 0 && (uint32_t)n <= capacity && st.state == ZL_BLOCK_DONE &&
                                  st.done == (uint32_t)n));
}

/* A packet for the receiver: refused, or its chunks stored and the inner
 * message handed on inside the packet. */
static void receive(zl_blocks *b, const uint8_t *p, size_t len, uint32_t capacity)
{
    uint8_t *copy = zl_fuzz_copy(p, len);
    const uint8_t *payload = copy;
    size_t left = len;
    uint8_t type = 0;
    int r = zl_blocks_check(b, copy, len, ZL_MSG_SNAPSHOT);
    REQUIRE(r == ZL_OK || r == ZL_ERR_MALFORMED || r == ZL_ERR_FULL || r == ZL_ERR_OVERFLOW);
    if (r == ZL_OK) {
        zl_blocks_unwrap(b, &type, &payload, &left);
        REQUIRE(type == ZL_MSG_SNAPSHOT || type == ZL_MSG_KEEPALIVE);
        REQUIRE(payload >= copy && payload + left == copy + len);
        REQUIRE(type == ZL_MSG_SNAPSHOT || left == 0);
    }
    free(copy);
    check_receiver(b, capacity);
}

/* The sender writes a section of at most `budget` bytes in front of a
 * fake snapshot of `inner` bytes; the peer must take it and hold exactly
 * the block's bytes where it has chunks. */
static void send_section(uint32_t len, uint32_t budget, uint32_t inner, uint64_t now)
{
    uint8_t payload[ZL_PACKET_MAX_PAYLOAD];
    const uint8_t *p = payload;
    size_t left;
    int bytes = (int)(inner % (ZL_PACKET_MAX_PAYLOAD + 1u)), k;
    uint8_t type;
    zl_block_status st;
    if (!zl_blocks_pending(&tx)) {
        len = 1u + len % ZL_BLOCK_MAX;
        REQUIRE(zl_blocks_send(&tx, pattern, len) == ZL_OK);
        zl_blocks_release(&peer);
    }
    REQUIRE(zl_blocks_send(&tx, pattern, 1) == ZL_ERR_FULL);
    tx.out.accepted = 1; /* as if a packet alone had been acknowledged */
    memset(payload, 0xEE, (size_t)bytes);
    type = zl_blocks_attach(&tx, &tx_link, payload, &bytes, ZL_MSG_SNAPSHOT, budget, now);
    REQUIRE(bytes <= ZL_PACKET_MAX_PAYLOAD);
    if (type == ZL_MSG_SNAPSHOT)
        return;
    REQUIRE(type == ZL_MSG_BLOCK);
    tx_link.next_sequence++; /* it went out */
    left = (size_t)bytes;
    REQUIRE(zl_blocks_check(&peer, payload, left, ZL_MSG_SNAPSHOT) == ZL_OK);
    zl_blocks_unwrap(&peer, &type, &p, &left);
    REQUIRE(type == ZL_MSG_SNAPSHOT && left == inner % (ZL_PACKET_MAX_PAYLOAD + 1u));
    for (k = 0; k < (int)left; k++)
        REQUIRE(p[k] == 0xEE);
    zl_blocks_progress(&peer, NULL, &st);
    REQUIRE(st.total == tx.out.total);
    for (k = 0; k < (int)peer.in.chunks; k++) {
        uint32_t at = (uint32_t)k * ZL_BLOCK_CHUNK, n = st.total - at;
        if (n > ZL_BLOCK_CHUNK)
            n = ZL_BLOCK_CHUNK;
        if ((peer.in.have[k >> 5] >> (k & 31)) & 1u)
            REQUIRE(memcmp(peer_buffer + at, pattern + at, n) == 0);
    }
}

/* Acks, true or not, for recent sequences: the sender's counts stay
 * within its block; once done, every chunk was acknowledged. */
static void ack(const uint8_t *p, size_t n)
{
    zl_link_acks acks;
    zl_block_status st;
    size_t i;
    acks.count = 0;
    for (i = 0; i < n && acks.count < ZL_LINK_ACK_WINDOW; i++)
        acks.sequence[acks.count++] = (uint16_t)(tx_link.next_sequence - 1u - p[i] % 16u);
    zl_blocks_acked(&tx, &acks);
    zl_blocks_progress(&tx, &st, NULL);
    REQUIRE(st.done <= st.total && tx.out.acked_chunks <= tx.out.chunks);
    REQUIRE(st.state != ZL_BLOCK_DONE || st.done == st.total);
}

/* The input is a series of records: an action byte, a length byte, then
 * that many bytes (cut to what is left). Actions (low 2 bits): 0 a packet
 * for the receiver; 1 the receiver's application releases its block;
 * 2 the sender writes a section (bytes: block length, budget, fake
 * snapshot length, milliseconds passing) that its peer reads; 3 acks.
 * The high 6 bits of the action byte pass that many milliseconds first. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t at = 0;
    uint64_t now = 1000000u;
    uint32_t i;
    for (i = 0; i < ZL_BLOCK_MAX; i++)
        pattern[i] = (uint8_t)(i * 7u + 3u);
    zl_blocks_init(&rx, rx_buffer, RX_CAPACITY);
    zl_blocks_init(&tx, NULL, 0);
    zl_blocks_init(&peer, peer_buffer, ZL_BLOCK_MAX);
    zl_link_init(&tx_link, now);
    while (at + 2u <= size) {
        uint8_t action = data[at];
        size_t len = data[at + 1u];
        const uint8_t *p = data + at + 2u;
        at += 2u;
        if (len > size - at)
            len = size - at;
        at += len;
        now += (uint64_t)(action >> 2) * 1000u;
        switch (action & 3u) {
        case 0:
            receive(&rx, p, len, RX_CAPACITY);
            break;
        case 1:
            zl_blocks_release(&rx);
            check_receiver(&rx, RX_CAPACITY);
            break;
        case 2:
            if (len >= 6u)
                send_section((uint32_t)p[0] | (uint32_t)p[1] << 8,
                             (uint32_t)p[2] | (uint32_t)p[3] << 8,
                             (uint32_t)p[4] | (uint32_t)p[5] << 8, now);
            break;
        default:
            ack(p, len);
            break;
        }
    }
    return 0;
}
