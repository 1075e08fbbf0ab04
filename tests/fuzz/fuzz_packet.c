/* fuzz_packet.c - libFuzzer harness for the packet parser and the link's
 * handling of received datagrams: hostile bytes in, invariants checked. */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_bytes.h"
#include "zl_link.h"

#define PROTOCOL_ID 0x5A4C0001u

/* The input is a series of records, each one datagram arriving at a link:
 *   byte 0     flags: bit 0 rewrite the CRC so the datagram passes it (the
 *              fuzzer could never find one; short fields widened as the
 *              link will); bit 1 the link sends a packet
 *              first; bits 2..7 milliseconds that pass before it
 *   bytes 1-2  datagram length, little-endian, low 11 bits (up to 2047, so
 *              oversized datagrams occur); cut to what the input still has
 *   then       the datagram
 * Each datagram is copied into a buffer of exactly its length, so
 * AddressSanitizer catches a read past its end. */
#define FLAG_RESEAL 1u
#define FLAG_SEND 2u

static zl_link the_link;
static uint8_t sent_seq[65536 / 8];     /* sequences the link sent */
static uint8_t reported_seq[65536 / 8]; /* sequences reported acked */

static int bit_get(const uint8_t *set, uint16_t i) { return (set[i / 8u] >> (i % 8u)) & 1; }
static void bit_set(uint8_t *set, uint16_t i)
{
    set[i / 8u] = (uint8_t)(set[i / 8u] | (1u << (i % 8u)));
}

/* The parser's contract, whatever the bytes. */
static void check_open(const uint8_t *p, size_t len, int resealed, const zl_packet_near *near,
                       zl_packet_header *h, int *result, zl_packet_drop *why)
{
    int r = zl_packet_open(p, len, PROTOCOL_ID, near, h, why);
    *result = r;
    if (len <= 4) {
        REQUIRE(r == ZL_ERR_MALFORMED && *why == ZL_PACKET_DROP_SHORT);
    } else if (len > ZL_MAX_PACKET) {
        REQUIRE(r == ZL_ERR_TRUNCATED && *why == ZL_PACKET_DROP_OVERSIZED);
    } else if (r < 0) {
        REQUIRE(r == ZL_ERR_MALFORMED);
        REQUIRE(*why == ZL_PACKET_DROP_FORMAT || *why == ZL_PACKET_DROP_SHORT ||
                (*why == ZL_PACKET_DROP_CHECKSUM && !resealed));
        /* Short only when the type byte asks for more than there is. */
        REQUIRE(*why != ZL_PACKET_DROP_SHORT || len < ZL_PACKET_HEADER_SIZE);
    } else {
        /* Sealing what was parsed gives back the very same bytes: the type
         * byte alone told the header's length. */
        static uint8_t again[ZL_MAX_PACKET + ZL_PACKET_HEADER_SIZE];
        REQUIRE(r == (int)zl_packet_header_size(h, 1) && *why == ZL_PACKET_DROP_NONE);
        REQUIRE(r == ZL_PACKET_HEADER_SIZE - ((p[4] & ZL_PACKET_ACKS_FULL) ? 4 : 0) -
                         ((p[4] & ZL_PACKET_SHORT_SEQUENCE) ? 1 : 0) -
                         ((p[4] & ZL_PACKET_SHORT_ACK) ? 1 : 0));
        REQUIRE(h->short_fields == (p[4] & (ZL_PACKET_SHORT_SEQUENCE | ZL_PACKET_SHORT_ACK)));
        REQUIRE(h->type < ZL_PACKET_TYPE_COUNT);
        memcpy(again + ZL_PACKET_HEADER_SIZE, p + r, len - (size_t)r);
        if (len - (size_t)r > ZL_PACKET_MAX_PAYLOAD) {
            /* Accepted up to ZL_MAX_PACKET, but never written that long:
             * every payload leaves room for a sealed packet's tag. */
            REQUIRE(zl_packet_seal(again, len - (size_t)r, h, PROTOCOL_ID) == ZL_ERR_OVERFLOW);
        } else {
            REQUIRE(zl_packet_seal(again, len - (size_t)r, h, PROTOCOL_ID) == (int)len);
            REQUIRE(memcmp(again, p, len) == 0);
        }
    }
    if (r < 0)
        REQUIRE(h->type == 0 && h->sequence == 0 && h->ack == 0 && h->ack_bits == 0);
}

static uint32_t total_dropped(const zl_link_stats *st)
{
    uint32_t sum = 0;
    int i;
    for (i = 0; i < ZL_PACKET_DROP_COUNT; i++)
        sum += st->dropped[i];
    return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t now = 0;
    uint32_t receives = 0, reported = 0, sends = 0;
    size_t at = 0;
    zl_link_stats st;

    zl_link_init(&the_link, 0);
    memset(sent_seq, 0, sizeof sent_seq);
    memset(reported_seq, 0, sizeof reported_seq);

    while (at + 3 <= size) {
        uint8_t flags = data[at];
        size_t len = (size_t)(data[at + 1] | (data[at + 2] << 8)) & 0x7FFu;
        zl_packet_header h, h2;
        zl_packet_near near;
        zl_packet_drop why;
        zl_link_acks acks;
        uint8_t *copy;
        int r, r2;
        uint32_t i;
        at += 3;
        if (len > size - at)
            len = size - at;
        now += (uint64_t)(flags >> 2) * 1000u;

        /* Sequences never wrap within one input, so "sent" is exact. */
        if ((flags & FLAG_SEND) && sends < 30000u) {
            uint8_t out[ZL_PACKET_HEADER_SIZE + 8];
            uint16_t seq = zl_link_next_sequence(&the_link);
            zl_packet_header next;
            memset(out, 0, sizeof out);
            zl_link_next_header(&the_link, 0, &next);
            REQUIRE(zl_link_send(&the_link, (uint8_t)(sends % ZL_PACKET_TYPE_COUNT), out, 8,
                                 PROTOCOL_ID, now) == (int)zl_packet_header_size(&next, 1) + 8);
            bit_set(sent_seq, seq);
            sends++;
        }

        copy = zl_fuzz_copy(data + at, len);
        at += len;
        near = zl_link_near(&the_link);
        if ((flags & FLAG_RESEAL) && len >= 4)
            zl_put_le32(copy, zl_packet_crc(copy, len, PROTOCOL_ID, &near));

        check_open(copy, len, (flags & FLAG_RESEAL) && len >= 4, &near, &h, &r, &why);
        r2 = zl_link_receive(&the_link, copy, len, PROTOCOL_ID, now, &h2, &acks);
        receives++;
        REQUIRE(acks.count <= ZL_LINK_ACK_WINDOW);
        if (r < 0) {
            REQUIRE(r2 == r && acks.count == 0);
        } else if (r2 < 0) {
            REQUIRE(r2 == ZL_ERR_DUPLICATE && acks.count == 0);
        } else {
            REQUIRE(r2 == r && h2.type == h.type && h2.sequence == h.sequence);
            REQUIRE(h2.ack == h.ack && h2.ack_bits == h.ack_bits);
            /* Only packets we sent are acked, each once, oldest first. */
            for (i = 0; i < acks.count; i++) {
                uint16_t seq = acks.sequence[i];
                REQUIRE(bit_get(sent_seq, seq) && !bit_get(reported_seq, seq));
                REQUIRE(i == 0 || zl_seq_newer(seq, acks.sequence[i - 1]));
                bit_set(reported_seq, seq);
                reported++;
            }
            /* The same datagram again is a replay. */
            REQUIRE(zl_link_receive(&the_link, copy, len, PROTOCOL_ID, now, &h2, &acks) ==
                    ZL_ERR_DUPLICATE);
            REQUIRE(acks.count == 0);
            receives++;
        }
        free(copy);

        zl_link_get_stats(&the_link, now, &st);
        REQUIRE(st.packets_received + total_dropped(&st) == receives);
        REQUIRE(st.dropped[ZL_PACKET_DROP_NONE] == 0);
        REQUIRE(st.packets_acked == reported && st.packets_sent == sends);
        REQUIRE(st.packets_lost_out <= sends);
        REQUIRE(st.loss_in_q16 <= 65536u && st.loss_out_q16 <= 65536u);
        REQUIRE(st.rtt_us <= ZL_LINK_MAX_RTT_US && st.jitter_us <= ZL_LINK_MAX_RTT_US);
    }
    return 0;
}
