/* zl_packet.h - the header every zerolag datagram starts with, sealed by a
 * CRC-32 over the protocol id and the packet, and its checked parser. */
#ifndef ZL_PACKET_H
#define ZL_PACKET_H

#include "zl_base.h"

ZL_BEGIN_DECLS

/* Wire layout, every multi-byte field little-endian:
 *   0..3   CRC-32 (zl_crc32.h) of the protocol id as 4 little-endian bytes
 *          followed by bytes 4..len-1 of the packet
 *   4      type in the low ZL_PACKET_TYPE_BITS bits; the other bits are 0
 *   5..6   sequence of this packet
 *   7..8   ack: the newest sequence the sender has received
 *   9..12  ack_bits: bit i set means sequence ack - i was received
 *   13..   payload, up to ZL_MAX_PACKET in all
 * The protocol id (which includes the version) is never sent: a datagram of
 * another protocol or version fails the CRC exactly like a corrupted one.
 * The CRC catches accidents, not attackers: anyone can compute it. */
#define ZL_PACKET_HEADER_SIZE 13
#define ZL_PACKET_MAX_PAYLOAD (ZL_MAX_PACKET - ZL_PACKET_HEADER_SIZE)
#define ZL_PACKET_TYPE_BITS 4
#define ZL_PACKET_TYPE_COUNT (1 << ZL_PACKET_TYPE_BITS)

ZL_STATIC_ASSERT(ZL_MAX_PACKET > ZL_PACKET_HEADER_SIZE && ZL_MAX_PACKET <= 65535,
                 zl_packet_max_size);

/* A parsed header. The connection layer gives the types their meaning. */
typedef struct zl_packet_header {
    uint8_t type;      /* 0 .. ZL_PACKET_TYPE_COUNT - 1 */
    uint16_t sequence; /* wraps; compare with zl_seq_newer (zl_ring.h) */
    uint16_t ack;      /* meaningful only when ack_bits != 0 */
    uint32_t ack_bits; /* 0 when the sender has received nothing yet */
} zl_packet_header;

/* Why a datagram was dropped. The packet parser reports the first four; the
 * link (zl_link.h) adds the last two and counts all of them. */
typedef enum zl_packet_drop {
    ZL_PACKET_DROP_NONE = 0,
    ZL_PACKET_DROP_SHORT,     /* fewer than ZL_PACKET_HEADER_SIZE bytes */
    ZL_PACKET_DROP_OVERSIZED, /* more than ZL_MAX_PACKET bytes */
    ZL_PACKET_DROP_CHECKSUM,  /* CRC mismatch: corrupted, forged, or another
                                 protocol id or version */
    ZL_PACKET_DROP_FORMAT,    /* CRC fine but reserved type bits set */
    ZL_PACKET_DROP_DUPLICATE, /* sequence already received: a replay or a
                                 datagram the network duplicated */
    ZL_PACKET_DROP_STALE,     /* sequence too old to tell whether it was
                                 received: refused as a possible replay */
    ZL_PACKET_DROP_COUNT
} zl_packet_drop;

/* Finishes a packet in place. The caller owns packet, which has room for
 * ZL_PACKET_HEADER_SIZE + payload_bytes and already holds the payload at
 * packet + ZL_PACKET_HEADER_SIZE; this writes the header in front of it and
 * the CRC under protocol_id. Returns the datagram length, or
 * ZL_ERR_OVERFLOW (nothing written) when it would exceed ZL_MAX_PACKET.
 * A type >= ZL_PACKET_TYPE_COUNT is a programmer error (ZL_ASSERT). */
int zl_packet_seal(void *packet, size_t payload_bytes, const zl_packet_header *h,
                   uint32_t protocol_id);

/* Checks a received datagram of len bytes (read only; no byte outside
 * packet[0 .. len-1] is read) and parses its header into *h. Returns
 * ZL_PACKET_HEADER_SIZE, the offset of the payload (len minus that is its
 * size), or: ZL_ERR_TRUNCATED for more than ZL_MAX_PACKET bytes;
 * ZL_ERR_MALFORMED for fewer than a header, a CRC mismatch or reserved bits
 * set. *h is zeroed on failure. When why is not NULL it receives the
 * reason (ZL_PACKET_DROP_NONE on success). packet may be NULL when len is 0. */
int zl_packet_open(const void *packet, size_t len, uint32_t protocol_id, zl_packet_header *h,
                   zl_packet_drop *why);

ZL_END_DECLS

#endif
