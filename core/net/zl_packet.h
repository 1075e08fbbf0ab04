/* zl_packet.h - the header every zerolag datagram starts with, sealed by a
 * CRC-32 over the protocol id and the packet (or, on a connection with session
 * keys, by AEAD), and its checked parsers.
 * Not part of the API (docs/ARCHITECTURE.md): public because the connections
 * the endpoints embed use its sizes and drop reasons (ZL_PACKET_TAG_SIZE,
 * zl_packet_drop, in their stats); an application calls none of it. */
#ifndef ZL_PACKET_H
#define ZL_PACKET_H

#include "zl_base.h"
#include "zl_crypto.h"

ZL_BEGIN_DECLS

/* Wire layout, every multi-byte field little-endian:
 *   4      CRC-32 (zl_crc32.h) of the protocol id as 4 little-endian bytes,
 *          the header's fields written long (below) and the payload
 *   1      type in the low ZL_PACKET_TYPE_BITS bits, ZL_PACKET_ACKS_FULL,
 *          ZL_PACKET_SHORT_SEQUENCE, ZL_PACKET_SHORT_ACK
 *   2 or 1 sequence of this packet (1: its low 8 bits, when short)
 *   2 or 1 ack: the newest sequence the sender has received (1: short)
 *   4      ack_bits: bit i set means sequence ack - i was received; absent
 *          when the type byte has ZL_PACKET_ACKS_FULL (all 32 bits are 1)
 *   then   payload, up to ZL_MAX_PACKET in all
 * The protocol id (which includes the version) is never sent: a datagram of
 * another protocol or version fails the CRC exactly like a corrupted one.
 * The CRC catches accidents, not attackers: anyone can compute it.
 * The type byte alone gives the header's length, 7 to 13 bytes. */
#define ZL_PACKET_HEADER_SIZE 13 /* the longest header: writers leave this
                                    much room before the payload */
/* Type byte flag: ack_bits is 0xFFFFFFFF and not sent (a clean link's steady
 * state). A writer sets it exactly when that is so, and a reader refuses
 * 0xFFFFFFFF sent in full, so every header has one encoding. */
#define ZL_PACKET_ACKS_FULL 0x20u
/* Type byte flags: the sequence, or the ack, is sent as its low 8 bits,
 * which the receiver widens to the 16-bit value within -128..+127 of its
 * reference (zl_packet_near). The sender uses a short field only when the
 * receiver's reference is known to be close enough (zl_link.c gives the
 * rules). A misread cannot be taken: the CRC, or a sealed packet's nonce
 * and associated data, cover each field as the reader widened it. */
#define ZL_PACKET_SHORT_SEQUENCE 0x40u
#define ZL_PACKET_SHORT_ACK 0x80u
/* Bytes a sealed packet (below) adds after its payload. */
#define ZL_PACKET_TAG_SIZE ZL_AEAD_TAG_SIZE
/* The largest payload, the same for both forms: room for a tag is kept. */
#define ZL_PACKET_MAX_PAYLOAD (ZL_MAX_PACKET - ZL_PACKET_HEADER_SIZE - ZL_PACKET_TAG_SIZE)
#define ZL_PACKET_TYPE_BITS 5
#define ZL_PACKET_TYPE_COUNT (1 << ZL_PACKET_TYPE_BITS)

ZL_STATIC_ASSERT(ZL_MAX_PACKET > ZL_PACKET_HEADER_SIZE && ZL_MAX_PACKET <= 65535,
                 zl_packet_max_size);

/* A parsed header. The connection layer gives the types their meaning. */
typedef struct zl_packet_header {
    uint8_t type;      /* 0 .. ZL_PACKET_TYPE_COUNT - 1 */
    uint16_t sequence; /* wraps; compare with zl_seq_newer (zl_ring.h) */
    uint16_t ack;      /* meaningful only when ack_bits != 0 */
    uint32_t ack_bits; /* 0 when the sender has received nothing yet */
    uint8_t short_fields; /* ZL_PACKET_SHORT_SEQUENCE and ZL_PACKET_SHORT_ACK:
                             which fields go (went) short; 0 for a
                             connectionless packet */
} zl_packet_header;

/* What a receiver widens short fields against (ZL_PACKET_SHORT_*): the
 * newest sequence it received from the peer and the newest ack it took
 * from the peer (zl_link_near). */
typedef struct zl_packet_near {
    uint16_t sequence;
    uint16_t ack;
} zl_packet_near;

/* Why a datagram was dropped. The packet parser reports the first four; the
 * link (zl_link.h) adds the last two and counts all of them. */
typedef enum zl_packet_drop {
    ZL_PACKET_DROP_NONE = 0,
    ZL_PACKET_DROP_SHORT,     /* shorter than its header (and tag) */
    ZL_PACKET_DROP_OVERSIZED, /* more than ZL_MAX_PACKET bytes */
    ZL_PACKET_DROP_CHECKSUM,  /* CRC mismatch: corrupted, forged, or another
                                 protocol id or version; on a sealed
                                 connection, a tag that did not authenticate */
    ZL_PACKET_DROP_FORMAT,    /* ack_bits 0xFFFFFFFF sent in full, a
                                 short field where none may be, or
                                 (sealed) another connection id */
    ZL_PACKET_DROP_DUPLICATE, /* sequence already received: a replay or a
                                 datagram the network duplicated */
    ZL_PACKET_DROP_STALE,     /* sequence too old to tell whether it was
                                 received: refused as a possible replay */
    ZL_PACKET_DROP_COUNT
} zl_packet_drop;

/* Bytes the header of h takes: 13, 4 fewer when ack_bits is all ones, 1
 * fewer for each short field, and 4 fewer when the connection id is not
 * sent (a sealed packet from the server). */
size_t zl_packet_header_size(const zl_packet_header *h, int id_sent);

/* Finishes a packet in place. The caller owns packet, which has room for
 * ZL_PACKET_HEADER_SIZE + payload_bytes and already holds the payload at
 * packet + ZL_PACKET_HEADER_SIZE; this moves the payload up against the
 * header it writes (zl_packet_header_size bytes), the datagram then
 * starting at packet, and the CRC under protocol_id. Returns the datagram
 * length, or ZL_ERR_OVERFLOW (nothing written) when payload_bytes exceeds
 * ZL_PACKET_MAX_PAYLOAD. A type >= ZL_PACKET_TYPE_COUNT is a programmer
 * error (ZL_ASSERT). */
int zl_packet_seal(void *packet, size_t payload_bytes, const zl_packet_header *h,
                   uint32_t protocol_id);

/* Checks a received datagram of len bytes (read only; no byte outside
 * packet[0 .. len-1] is read) and parses its header into *h, short fields
 * widened against near (NULL for a connectionless packet: no field may be
 * short). Returns the header's length, the offset of the payload (len
 * minus that is its size), or: ZL_ERR_TRUNCATED for more than
 * ZL_MAX_PACKET bytes; ZL_ERR_MALFORMED for fewer than a header, a CRC
 * mismatch (a short field misread included), all 32 ack bits sent in full
 * or a short field without near (ZL_PACKET_DROP_FORMAT). *h is zeroed on
 * failure. When why is not NULL it receives the reason
 * (ZL_PACKET_DROP_NONE on success). packet may be NULL when len is 0. */
int zl_packet_open(const void *packet, size_t len, uint32_t protocol_id,
                   const zl_packet_near *near, zl_packet_header *h, zl_packet_drop *why);

/* The CRC a plain datagram of len bytes must carry in its first 4 bytes to
 * pass zl_packet_open with protocol_id and near; 0 when its header cannot
 * be read at all (hostile bytes fine). For tests and fuzzers that build
 * datagrams by hand. */
uint32_t zl_packet_crc(const void *packet, size_t len, uint32_t protocol_id,
                       const zl_packet_near *near);

/* ---- Sealed packets: a connection with session keys (zl_token.h) ----
 * The same header, but bytes 0..3 carry the connection id in clear (where a
 * plain packet has its CRC) or, when id_sent is 0 (what the server sends:
 * its client reads only the server's address), nothing, the header then
 * starting with its type byte; the payload is encrypted and a
 * ZL_PACKET_TAG_SIZE tag follows it. ChaCha20-Poly1305 (through `aead`, the
 * built-in one or a port's engine) authenticates the protocol id, the
 * connection id (sent or not), the rest of the header with its fields
 * written long and the payload. The nonce is the packet's 64-bit sequence
 * in its direction, of which the header carries the low 16 (or, short, 8)
 * bits; each direction has its own key,
 * so a nonce never repeats under a key as long as the sender never reuses a
 * sequence (2^64 packets). */

/* Seals in place: packet holds payload_bytes at packet +
 * ZL_PACKET_HEADER_SIZE and has room for the tag after them; the datagram
 * starts at packet, as zl_packet_seal's. h's sequence must be the low 16
 * bits of `sequence`; protocol_id is authenticated, as zl_packet_seal
 * checks it. Returns the datagram length, or ZL_ERR_OVERFLOW (nothing
 * written) when payload_bytes exceeds ZL_PACKET_MAX_PAYLOAD. */
int zl_packet_seal_aead(void *packet, size_t payload_bytes, const zl_packet_header *h,
                        uint32_t conn_id, int id_sent, uint64_t sequence, uint32_t protocol_id,
                        const uint8_t key[ZL_AEAD_KEY_SIZE], const zl_aead *aead);

/* The 64-bit sequence whose low 16 bits are `low`, nearest to `newest` (the
 * newest received): packets arrive within half the 16-bit space of it. */
uint64_t zl_packet_widen(uint16_t low, uint64_t newest);

/* The connection id a sealed datagram with id_sent carries in clear, read
 * without any cryptography: 1 with *conn_id set when its size and type byte
 * could be a sealed packet's, else 0 (hostile bytes fine). */
int zl_packet_sealed_id(const void *packet, size_t len, uint32_t *conn_id);

/* The nonce zl_packet_open_aead would open a datagram of len bytes with
 * (id_sent, newest and near as there), read without any cryptography or
 * check of the id: 1 with nonce written when its size and header could be
 * a sealed packet's, else 0 (hostile bytes fine). For making keystreams
 * ahead (zl_aead_ahead). */
int zl_packet_sealed_nonce(const void *packet, size_t len, int id_sent, uint64_t newest,
                           const zl_packet_near *near, uint8_t nonce[ZL_AEAD_NONCE_SIZE]);

/* Checks and decrypts a received sealed datagram of len bytes in place
 * (packet is writable; hostile bytes fine): the connection id (in clear
 * when id_sent, else only authenticated) must be conn_id and the tag must
 * verify under key and protocol_id with short fields widened against near
 * and the sequence then widened against `newest`. Returns the header's length with *h the header, the payload
 * (len minus that and ZL_PACKET_TAG_SIZE bytes) in clear after it and
 * *sequence the full sequence; else ZL_ERR_TRUNCATED (over ZL_MAX_PACKET),
 * ZL_ERR_MALFORMED (shorter than header and tag, a header with two
 * encodings, another connection id in clear) or ZL_ERR_AUTH (forged, tampered, replayed
 * under another sequence, another key), with *h zeroed, *why (when not
 * NULL) the reason (ZL_PACKET_DROP_CHECKSUM for an authentication failure)
 * and the packet unchanged. */
int zl_packet_open_aead(void *packet, size_t len, uint32_t conn_id, int id_sent, uint64_t newest,
                        const zl_packet_near *near, uint32_t protocol_id,
                        const uint8_t key[ZL_AEAD_KEY_SIZE], const zl_aead *aead,
                        zl_packet_header *h, uint64_t *sequence, zl_packet_drop *why);

ZL_END_DECLS

#endif
