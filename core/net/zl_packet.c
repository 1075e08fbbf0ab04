/* zl_packet.c - writes and checks the packet header byte by byte in little-
 * endian order, so the wire format is the same on every host. */
#include "zl_packet.h"

#include <string.h>

#include "zl_bytes.h"
#include "zl_crc32.h"

#define CRC_SIZE 4 /* the plain form's CRC, or the sealed form's clear id */
#define ACK_BITS_SIZE 4
#define ALL_ACKED 0xFFFFFFFFu
#define RESERVED_TYPE_BITS 0xC0u

size_t zl_packet_header_size(const zl_packet_header *h, int id_sent)
{
    ZL_ASSERT(h != NULL);
    return ZL_PACKET_HEADER_SIZE - (h->ack_bits == ALL_ACKED ? ACK_BITS_SIZE : 0u) -
           (id_sent ? 0u : CRC_SIZE);
}

/* Moves the payload from where writers leave it (after the longest
 * header) down to just after the header written, at dst <= src. Forward,
 * a word at a time: each word is read before its bytes are written, and
 * the bytes written lie at or before those read, so the overlap is safe.
 * memmove goes a byte at a time when the two are not word aligned alike,
 * which they never are here (the Cortex-M3 paid 1,500 instructions a
 * snapshot). Nothing to do when the header is the longest. */
static void move_payload(uint8_t *dst, const uint8_t *src, size_t n)
{
    size_t i = 0;
    uint32_t w;
    if (dst == src)
        return;
    for (; i + 4 <= n; i += 4) {
        memcpy(&w, src + i, 4);
        memcpy(dst + i, &w, 4);
    }
    for (; i < n; i++)
        dst[i] = src[i];
}

/* Writes the header from its type byte on at p; returns its length. */
static size_t write_fields(uint8_t *p, const zl_packet_header *h)
{
    int full = h->ack_bits == ALL_ACKED;
    p[0] = (uint8_t)(h->type | (full ? ZL_PACKET_ACKS_FULL : 0u));
    zl_put_le16(p + 1, h->sequence);
    zl_put_le16(p + 3, h->ack);
    if (full)
        return 5;
    zl_put_le32(p + 5, h->ack_bits);
    return 5 + ACK_BITS_SIZE;
}

/* The length of a header from its type byte on, told by that byte alone;
 * 0 when reserved bits are set. */
static size_t fields_size(uint8_t type_byte)
{
    if (type_byte & RESERVED_TYPE_BITS)
        return 0;
    return type_byte & ZL_PACKET_ACKS_FULL ? 5u : 5u + ACK_BITS_SIZE;
}

/* Parses a header from its type byte on (fields_size bytes are there).
 * Returns 0 when all 32 ack bits were sent in full: no writer does that,
 * and refusing it keeps exactly one encoding for every header. */
static int read_fields(const uint8_t *p, zl_packet_header *h)
{
    h->type = (uint8_t)(p[0] & (ZL_PACKET_TYPE_COUNT - 1));
    h->sequence = zl_get_le16(p + 1);
    h->ack = zl_get_le16(p + 3);
    if (p[0] & ZL_PACKET_ACKS_FULL) {
        h->ack_bits = ALL_ACKED;
        return 1;
    }
    h->ack_bits = zl_get_le32(p + 5);
    return h->ack_bits != ALL_ACKED;
}

/* The protocol id goes into the CRC first, as if it were sent: both ends
 * must agree on it for any packet to pass. */
static uint32_t packet_crc(const uint8_t *packet, size_t len, uint32_t protocol_id)
{
    uint8_t id[4];
    zl_put_le32(id, protocol_id);
    return zl_crc32_update(zl_crc32_update(0, id, sizeof id), packet + CRC_SIZE,
                           len - CRC_SIZE);
}

int zl_packet_seal(void *packet, size_t payload_bytes, const zl_packet_header *h,
                   uint32_t protocol_id)
{
    uint8_t *p = (uint8_t *)packet;
    size_t at, len;
    ZL_ASSERT(packet != NULL && h != NULL && h->type < ZL_PACKET_TYPE_COUNT);
    if (payload_bytes > ZL_PACKET_MAX_PAYLOAD)
        return ZL_ERR_OVERFLOW;
    at = CRC_SIZE + write_fields(p + CRC_SIZE, h);
    move_payload(p + at, p + ZL_PACKET_HEADER_SIZE, payload_bytes);
    len = at + payload_bytes;
    zl_put_le32(p, packet_crc(p, len, protocol_id));
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

int zl_packet_open(const void *packet, size_t len, uint32_t protocol_id, zl_packet_header *h,
                   zl_packet_drop *why)
{
    const uint8_t *p = (const uint8_t *)packet;
    size_t fields;
    ZL_ASSERT(h != NULL && (packet != NULL || len == 0));
    if (len <= CRC_SIZE)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (len > ZL_MAX_PACKET)
        return refuse(h, why, ZL_PACKET_DROP_OVERSIZED, ZL_ERR_TRUNCATED);
    if (zl_get_le32(p) != packet_crc(p, len, protocol_id))
        return refuse(h, why, ZL_PACKET_DROP_CHECKSUM, ZL_ERR_MALFORMED);
    fields = fields_size(p[CRC_SIZE]);
    if (fields == 0)
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    if (len < CRC_SIZE + fields)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (!read_fields(p + CRC_SIZE, h))
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    return accept_header(why, CRC_SIZE + fields);
}

/* ---- Sealed packets ---- */

/* The AEAD's associated data: the protocol id and the connection id, sent
 * or not, then the header from its type byte on as sent. Returns its
 * length. */
static size_t sealed_aad(uint8_t aad[4 + ZL_PACKET_HEADER_SIZE], uint32_t protocol_id,
                         uint32_t conn_id, const uint8_t *fields, size_t fields_bytes)
{
    zl_put_le32(aad, protocol_id);
    zl_put_le32(aad + 4, conn_id);
    memcpy(aad + 8, fields, fields_bytes);
    return 8 + fields_bytes;
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
    uint8_t aad[4 + ZL_PACKET_HEADER_SIZE], nonce[ZL_AEAD_NONCE_SIZE];
    size_t at = id_sent ? CRC_SIZE : 0u, fields, aad_bytes;
    int n;
    ZL_ASSERT(packet != NULL && h != NULL && h->type < ZL_PACKET_TYPE_COUNT && key && aead);
    ZL_ASSERT(h->sequence == (uint16_t)sequence);
    if (payload_bytes > ZL_PACKET_MAX_PAYLOAD)
        return ZL_ERR_OVERFLOW;
    if (id_sent)
        zl_put_le32(p, conn_id);
    fields = write_fields(p + at, h);
    aad_bytes = sealed_aad(aad, protocol_id, conn_id, p + at, fields);
    at += fields;
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
    if (len < at + 5 + ZL_PACKET_TAG_SIZE)
        return 0;
    fields = fields_size(p[at]);
    return fields && len >= at + fields + ZL_PACKET_TAG_SIZE ? at + fields : 0u;
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
                           uint8_t nonce[ZL_AEAD_NONCE_SIZE])
{
    const uint8_t *p = (const uint8_t *)packet;
    zl_packet_header h;
    ZL_ASSERT(nonce && (packet != NULL || len == 0));
    if (len > ZL_MAX_PACKET || sealed_header_size(p, len, id_sent) == 0 ||
        !read_fields(p + (id_sent ? CRC_SIZE : 0u), &h))
        return 0;
    sealed_nonce(nonce, zl_packet_widen(h.sequence, newest));
    return 1;
}

int zl_packet_open_aead(void *packet, size_t len, uint32_t conn_id, int id_sent, uint64_t newest,
                        uint32_t protocol_id, const uint8_t key[ZL_AEAD_KEY_SIZE],
                        const zl_aead *aead, zl_packet_header *h, uint64_t *sequence,
                        zl_packet_drop *why)
{
    uint8_t *p = (uint8_t *)packet;
    uint8_t aad[4 + ZL_PACKET_HEADER_SIZE], nonce[ZL_AEAD_NONCE_SIZE];
    size_t from = id_sent ? CRC_SIZE : 0u, at, aad_bytes;
    uint64_t seq;
    ZL_ASSERT(h != NULL && sequence != NULL && key && aead && (packet != NULL || len == 0));
    if (len > ZL_MAX_PACKET)
        return refuse(h, why, ZL_PACKET_DROP_OVERSIZED, ZL_ERR_TRUNCATED);
    if (len < from + 5 + ZL_PACKET_TAG_SIZE)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (fields_size(p[from]) == 0 || (id_sent && zl_get_le32(p) != conn_id))
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    at = sealed_header_size(p, len, id_sent);
    if (at == 0)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (!read_fields(p + from, h))
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    seq = zl_packet_widen(h->sequence, newest);
    aad_bytes = sealed_aad(aad, protocol_id, conn_id, p + from, at - from);
    sealed_nonce(nonce, seq);
    if (aead->open(aead->ctx, p + at, len - at, p + at, len - at, aad, aad_bytes, nonce, key) < 0)
        return refuse(h, why, ZL_PACKET_DROP_CHECKSUM, ZL_ERR_AUTH);
    *sequence = seq;
    return accept_header(why, at);
}
