/* zl_packet.c - writes and checks the packet header byte by byte in little-
 * endian order, so the wire format is the same on every host. */
#include "zl_packet.h"

#include <string.h>

#include "zl_bytes.h"
#include "zl_crc32.h"

#define CRC_SIZE 4 /* the plain form's CRC, or the sealed form's clear id */
#define ACK_BITS_SIZE 4
#define ALL_ACKED 0xFFFFFFFFu
#define LONG_FIELDS 9 /* type byte, sequence, ack and ack_bits in full */
#define MIN_FIELDS 3  /* type byte, short sequence, short ack */

size_t zl_packet_header_size(const zl_packet_header *h, int id_sent)
{
    ZL_ASSERT(h != NULL);
    return ZL_PACKET_HEADER_SIZE - (h->ack_bits == ALL_ACKED ? ACK_BITS_SIZE : 0u) -
           (id_sent ? 0u : CRC_SIZE) - ((h->short_fields & ZL_PACKET_SHORT_SEQUENCE) != 0) -
           ((h->short_fields & ZL_PACKET_SHORT_ACK) != 0);
}

/* Moves the payload from where writers leave it (after the longest
 * header) down to just after the header written, at dst <= src. Forward,
 * eight bytes at a time: each run is read before its bytes are written, and
 * the bytes written lie at or before those read, so the overlap is safe.
 * memmove goes a byte at a time when the two are not word aligned alike,
 * which they never are here (the Cortex-M3 paid 1,500 instructions a
 * snapshot). Nothing to do when the header is the longest. */
static void move_payload(uint8_t *dst, const uint8_t *src, size_t n)
{
    size_t i = 0;
    uint64_t w;
    if (dst == src)
        return;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, src + i, 8);
        memcpy(dst + i, &w, 8);
    }
    for (; i < n; i++)
        dst[i] = src[i];
}

/* The type byte of h: its type and flags. */
static uint8_t type_byte(const zl_packet_header *h)
{
    return (uint8_t)(h->type | (h->ack_bits == ALL_ACKED ? ZL_PACKET_ACKS_FULL : 0u) |
                     (h->short_fields & (ZL_PACKET_SHORT_SEQUENCE | ZL_PACKET_SHORT_ACK)));
}

/* Writes the header from its type byte on at p, each field short or long
 * as h->short_fields says; returns its length. */
static size_t write_fields(uint8_t *p, const zl_packet_header *h)
{
    size_t at = 1;
    p[0] = type_byte(h);
    if (p[0] & ZL_PACKET_SHORT_SEQUENCE) {
        p[at++] = (uint8_t)h->sequence;
    } else {
        zl_put_le16(p + at, h->sequence);
        at += 2;
    }
    if (p[0] & ZL_PACKET_SHORT_ACK) {
        p[at++] = (uint8_t)h->ack;
    } else {
        zl_put_le16(p + at, h->ack);
        at += 2;
    }
    if (p[0] & ZL_PACKET_ACKS_FULL)
        return at;
    zl_put_le32(p + at, h->ack_bits);
    return at + ACK_BITS_SIZE;
}

/* What the CRC and the associated data cover of a header: its fields all
 * written long, the type byte as sent (so the forms used are covered too).
 * A short field is covered as the value its reader widened it to, so a
 * misread one fails the check instead of being taken. */
static size_t long_fields(uint8_t out[LONG_FIELDS], const zl_packet_header *h)
{
    out[0] = type_byte(h);
    zl_put_le16(out + 1, h->sequence);
    zl_put_le16(out + 3, h->ack);
    if (out[0] & ZL_PACKET_ACKS_FULL)
        return LONG_FIELDS - ACK_BITS_SIZE;
    zl_put_le32(out + 5, h->ack_bits);
    return LONG_FIELDS;
}

/* The length of a header from its type byte on, told by that byte alone:
 * by its three flags (ACKS_FULL, SHORT_SEQUENCE, SHORT_ACK, bits 5-7), 9
 * bytes less 4 without ack_bits and 1 for each short field. A table: every
 * datagram received asks, some twice. */
ZL_STATIC_ASSERT(ZL_PACKET_ACKS_FULL == 0x20u && ZL_PACKET_SHORT_SEQUENCE == 0x40u &&
                     ZL_PACKET_SHORT_ACK == 0x80u,
                 packet_flag_bits);
static size_t fields_size(uint8_t type_byte)
{
    static const uint8_t size[8] = {9, 5, 8, 4, 8, 4, 7, 3};
    return size[type_byte >> 5];
}

/* The 16-bit value with the low 8 bits `low` nearest `ref`: within
 * -128..+127 of it, modulo 2^16. */
static uint16_t widen_short(uint8_t low, uint16_t ref)
{
    return (uint16_t)(ref + (uint16_t)(int8_t)(uint8_t)(low - (uint8_t)ref));
}

/* The sequence of a header from its type byte on at p, widened against
 * near when short (near is then not NULL). */
static uint16_t read_sequence(const uint8_t *p, const zl_packet_near *near)
{
    return p[0] & ZL_PACKET_SHORT_SEQUENCE ? widen_short(p[1], near->sequence)
                                            : zl_get_le16(p + 1);
}

/* Parses a header from its type byte on (fields_size bytes are there),
 * widening short fields against near (NULL: none may be short). Returns
 * 0 when the header is refused: a short field without a reference, or all
 * 32 ack bits sent in full (no writer does that, and refusing it keeps
 * one encoding of the ack bits). */
static int read_fields(const uint8_t *p, const zl_packet_near *near, zl_packet_header *h)
{
    size_t at = p[0] & ZL_PACKET_SHORT_SEQUENCE ? 2u : 3u;
    h->type = (uint8_t)(p[0] & (ZL_PACKET_TYPE_COUNT - 1));
    h->short_fields = (uint8_t)(p[0] & (ZL_PACKET_SHORT_SEQUENCE | ZL_PACKET_SHORT_ACK));
    if (h->short_fields && near == NULL)
        return 0;
    h->sequence = read_sequence(p, near);
    if (p[0] & ZL_PACKET_SHORT_ACK) {
        h->ack = widen_short(p[at++], near->ack);
    } else {
        h->ack = zl_get_le16(p + at);
        at += 2;
    }
    if (p[0] & ZL_PACKET_ACKS_FULL) {
        h->ack_bits = ALL_ACKED;
        return 1;
    }
    h->ack_bits = zl_get_le32(p + at);
    return h->ack_bits != ALL_ACKED;
}

/* The CRC of a plain packet of len bytes (its header h, fields bytes from
 * its type byte on, then the payload): the protocol id goes in first and
 * the header's fields long (long_fields), as if they were sent: both ends
 * must agree on them for any packet to pass. */
static uint32_t packet_crc(const uint8_t *packet, size_t len, const zl_packet_header *h,
                           size_t fields, uint32_t protocol_id)
{
    uint8_t head[4 + LONG_FIELDS];
    size_t n;
    zl_put_le32(head, protocol_id);
    n = 4 + long_fields(head + 4, h);
    return zl_crc32_update(zl_crc32_update(0, head, n), packet + CRC_SIZE + fields,
                           len - CRC_SIZE - fields);
}

int zl_packet_seal(void *packet, size_t payload_bytes, const zl_packet_header *h,
                   uint32_t protocol_id)
{
    uint8_t *p = (uint8_t *)packet;
    size_t fields, len;
    ZL_ASSERT(packet != NULL && h != NULL && h->type < ZL_PACKET_TYPE_COUNT);
    if (payload_bytes > ZL_PACKET_MAX_PAYLOAD)
        return ZL_ERR_OVERFLOW;
    fields = write_fields(p + CRC_SIZE, h);
    move_payload(p + CRC_SIZE + fields, p + ZL_PACKET_HEADER_SIZE, payload_bytes);
    len = CRC_SIZE + fields + payload_bytes;
    zl_put_le32(p, packet_crc(p, len, h, fields, protocol_id));
    return (int)len;
}

static int refuse(zl_packet_header *h, zl_packet_drop *why, zl_packet_drop reason, int code)
{
    memset(h, 0, sizeof *h);
    if (why != NULL)
        *why = reason;
    return code;
}

static int accept_header(zl_packet_drop *why, size_t header_size)
{
    if (why != NULL)
        *why = ZL_PACKET_DROP_NONE;
    return (int)header_size;
}

/* Reads a plain header without its check: the header's length, or a
 * refusal with *why. */
static int read_plain(const uint8_t *p, size_t len, const zl_packet_near *near,
                      zl_packet_header *h, zl_packet_drop *why)
{
    size_t fields;
    if (len <= CRC_SIZE)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (len > ZL_MAX_PACKET)
        return refuse(h, why, ZL_PACKET_DROP_OVERSIZED, ZL_ERR_TRUNCATED);
    fields = fields_size(p[CRC_SIZE]);
    if (len < CRC_SIZE + fields)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (!read_fields(p + CRC_SIZE, near, h))
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    return (int)(CRC_SIZE + fields);
}

int zl_packet_open(const void *packet, size_t len, uint32_t protocol_id,
                   const zl_packet_near *near, zl_packet_header *h, zl_packet_drop *why)
{
    const uint8_t *p = (const uint8_t *)packet;
    int at;
    ZL_ASSERT(h != NULL && (packet != NULL || len == 0));
    at = read_plain(p, len, near, h, why);
    if (at < 0)
        return at;
    if (zl_get_le32(p) != packet_crc(p, len, h, (size_t)at - CRC_SIZE, protocol_id))
        return refuse(h, why, ZL_PACKET_DROP_CHECKSUM, ZL_ERR_MALFORMED);
    return accept_header(why, (size_t)at);
}

uint32_t zl_packet_crc(const void *packet, size_t len, uint32_t protocol_id,
                       const zl_packet_near *near)
{
    zl_packet_header h;
    int at;
    ZL_ASSERT(packet != NULL || len == 0);
    at = read_plain((const uint8_t *)packet, len, near, &h, NULL);
    return at < 0 ? 0u : packet_crc((const uint8_t *)packet, len, &h, (size_t)at - CRC_SIZE,
                                    protocol_id);
}

/* ---- Sealed packets ---- */

/* The AEAD's associated data: the protocol id and the connection id, sent
 * or not, then the header's fields long (long_fields). Returns its
 * length. */
static size_t sealed_aad(uint8_t aad[8 + LONG_FIELDS], uint32_t protocol_id, uint32_t conn_id,
                         const zl_packet_header *h)
{
    zl_put_le32(aad, protocol_id);
    zl_put_le32(aad + 4, conn_id);
    return 8 + long_fields(aad + 8, h);
}

/* The 96-bit nonce of a 64-bit sequence: 4 zero bytes, then the sequence. */
static void sealed_nonce(uint8_t nonce[ZL_AEAD_NONCE_SIZE], uint64_t sequence)
{
    memset(nonce, 0, 4);
    zl_put_le32(nonce + 4, (uint32_t)sequence);
    zl_put_le32(nonce + 8, (uint32_t)(sequence >> 32));
}

int zl_packet_seal_aead(void *packet, size_t payload_bytes, const zl_packet_header *h,
                        uint32_t conn_id, int id_sent, uint64_t sequence, uint32_t protocol_id,
                        const uint8_t key[ZL_AEAD_KEY_SIZE], const zl_aead *aead)
{
    uint8_t *p = (uint8_t *)packet;
    uint8_t aad[8 + LONG_FIELDS], nonce[ZL_AEAD_NONCE_SIZE];
    size_t at = id_sent ? CRC_SIZE : 0u, aad_bytes;
    int n;
    ZL_ASSERT(packet != NULL && h != NULL && h->type < ZL_PACKET_TYPE_COUNT && key && aead);
    ZL_ASSERT(h->sequence == (uint16_t)sequence);
    if (payload_bytes > ZL_PACKET_MAX_PAYLOAD)
        return ZL_ERR_OVERFLOW;
    if (id_sent)
        zl_put_le32(p, conn_id);
    at += write_fields(p + at, h);
    aad_bytes = sealed_aad(aad, protocol_id, conn_id, h);
    move_payload(p + at, p + ZL_PACKET_HEADER_SIZE, payload_bytes);
    sealed_nonce(nonce, sequence);
    n = aead->seal(aead->ctx, p + at, payload_bytes + ZL_PACKET_TAG_SIZE, p + at, payload_bytes,
                   aad, aad_bytes, nonce, key);
    return n < 0 ? n : (int)at + n;
}

uint64_t zl_packet_widen(uint16_t low, uint64_t newest)
{
    uint64_t v = (newest & ~(uint64_t)0xFFFFu) | low;
    if (v > newest && v - newest > 0x8000u && v >= 0x10000u)
        v -= 0x10000u;
    else if (v < newest && newest - v > 0x8000u)
        v += 0x10000u;
    return v;
}

/* The length of a sealed header (id_sent: the clear id included) that fits
 * len bytes with a tag, from its type byte alone; 0 when none does. */
static size_t sealed_header_size(const uint8_t *p, size_t len, int id_sent)
{
    size_t at = id_sent ? CRC_SIZE : 0u, fields;
    if (len < at + MIN_FIELDS + ZL_PACKET_TAG_SIZE)
        return 0;
    fields = fields_size(p[at]);
    return len >= at + fields + ZL_PACKET_TAG_SIZE ? at + fields : 0u;
}

int zl_packet_sealed_id(const void *packet, size_t len, uint32_t *conn_id)
{
    const uint8_t *p = (const uint8_t *)packet;
    ZL_ASSERT(conn_id && (packet != NULL || len == 0));
    if (len > ZL_MAX_PACKET || sealed_header_size(p, len, 1) == 0)
        return 0;
    *conn_id = zl_get_le32(p);
    return 1;
}

int zl_packet_sealed_nonce(const void *packet, size_t len, int id_sent, uint64_t newest,
                           const zl_packet_near *near, uint8_t nonce[ZL_AEAD_NONCE_SIZE])
{
    const uint8_t *p = (const uint8_t *)packet;
    ZL_ASSERT(near && nonce && (packet != NULL || len == 0));
    /* Only the sequence: a header refused for its other fields is refused
     * by zl_packet_open_aead, the keystream made for it unused. */
    if (len > ZL_MAX_PACKET || sealed_header_size(p, len, id_sent) == 0)
        return 0;
    sealed_nonce(nonce, zl_packet_widen(read_sequence(p + (id_sent ? CRC_SIZE : 0u), near), newest));
    return 1;
}

int zl_packet_open_aead(void *packet, size_t len, uint32_t conn_id, int id_sent, uint64_t newest,
                        const zl_packet_near *near, uint32_t protocol_id,
                        const uint8_t key[ZL_AEAD_KEY_SIZE], const zl_aead *aead,
                        zl_packet_header *h, uint64_t *sequence, zl_packet_drop *why)
{
    uint8_t *p = (uint8_t *)packet;
    uint8_t aad[8 + LONG_FIELDS], nonce[ZL_AEAD_NONCE_SIZE];
    size_t from = id_sent ? CRC_SIZE : 0u, at, aad_bytes;
    uint64_t seq;
    ZL_ASSERT(h != NULL && sequence != NULL && near && key && aead &&
              (packet != NULL || len == 0));
    if (len > ZL_MAX_PACKET)
        return refuse(h, why, ZL_PACKET_DROP_OVERSIZED, ZL_ERR_TRUNCATED);
    if (len < from + MIN_FIELDS + ZL_PACKET_TAG_SIZE)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (id_sent && zl_get_le32(p) != conn_id)
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    at = sealed_header_size(p, len, id_sent);
    if (at == 0)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (!read_fields(p + from, near, h))
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    seq = zl_packet_widen(h->sequence, newest);
    aad_bytes = sealed_aad(aad, protocol_id, conn_id, h);
    sealed_nonce(nonce, seq);
    if (aead->open(aead->ctx, p + at, len - at, p + at, len - at, aad, aad_bytes, nonce, key) < 0)
        return refuse(h, why, ZL_PACKET_DROP_CHECKSUM, ZL_ERR_AUTH);
    *sequence = seq;
    return accept_header(why, at);
}
