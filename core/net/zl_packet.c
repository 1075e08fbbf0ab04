/* zl_packet.c - writes and checks the packet header byte by byte in little-
 * endian order, so the wire format is the same on every host. */
#include "zl_packet.h"

#include <string.h>

#include "zl_bytes.h"
#include "zl_crc32.h"

#define CRC_SIZE 4

static void write_header(uint8_t *p, const zl_packet_header *h)
{
    p[4] = h->type;
    zl_put_le16(p + 5, h->sequence);
    zl_put_le16(p + 7, h->ack);
    zl_put_le32(p + 9, h->ack_bits);
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
    size_t len;
    ZL_ASSERT(packet != NULL && h != NULL && h->type < ZL_PACKET_TYPE_COUNT);
    if (payload_bytes > ZL_PACKET_MAX_PAYLOAD)
        return ZL_ERR_OVERFLOW;
    len = ZL_PACKET_HEADER_SIZE + payload_bytes;
    write_header(p, h);
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

/* Parses a header that passed its check. */
static int accept_header(const uint8_t *p, zl_packet_header *h, zl_packet_drop *why)
{
    h->type = p[4];
    h->sequence = zl_get_le16(p + 5);
    h->ack = zl_get_le16(p + 7);
    h->ack_bits = zl_get_le32(p + 9);
    if (why != NULL)
        *why = ZL_PACKET_DROP_NONE;
    return ZL_PACKET_HEADER_SIZE;
}

int zl_packet_open(const void *packet, size_t len, uint32_t protocol_id, zl_packet_header *h,
                   zl_packet_drop *why)
{
    const uint8_t *p = (const uint8_t *)packet;
    ZL_ASSERT(h != NULL && (packet != NULL || len == 0));
    if (len < ZL_PACKET_HEADER_SIZE)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (len > ZL_MAX_PACKET)
        return refuse(h, why, ZL_PACKET_DROP_OVERSIZED, ZL_ERR_TRUNCATED);
    if (zl_get_le32(p) != packet_crc(p, len, protocol_id))
        return refuse(h, why, ZL_PACKET_DROP_CHECKSUM, ZL_ERR_MALFORMED);
    /* No writer sets the high bits of the type byte; refusing them keeps
     * exactly one encoding for every header. */
    if (p[4] >= ZL_PACKET_TYPE_COUNT)
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    return accept_header(p, h, why);
}

/* ---- Sealed packets ---- */

/* The AEAD's associated data: the protocol id, then the header as sent. */
static void sealed_aad(uint8_t aad[4 + ZL_PACKET_HEADER_SIZE], const uint8_t *packet,
                       uint32_t protocol_id)
{
    zl_put_le32(aad, protocol_id);
    memcpy(aad + 4, packet, ZL_PACKET_HEADER_SIZE);
}

/* The 96-bit nonce of a 64-bit sequence: 4 zero bytes, then the sequence. */
static void sealed_nonce(uint8_t nonce[ZL_AEAD_NONCE_SIZE], uint64_t sequence)
{
    memset(nonce, 0, 4);
    zl_put_le32(nonce + 4, (uint32_t)sequence);
    zl_put_le32(nonce + 8, (uint32_t)(sequence >> 32));
}

int zl_packet_seal_aead(void *packet, size_t payload_bytes, const zl_packet_header *h,
                        uint32_t conn_id, uint64_t sequence, uint32_t protocol_id,
                        const uint8_t key[ZL_AEAD_KEY_SIZE], const zl_aead *aead)
{
    uint8_t *p = (uint8_t *)packet;
    uint8_t aad[4 + ZL_PACKET_HEADER_SIZE], nonce[ZL_AEAD_NONCE_SIZE];
    int n;
    ZL_ASSERT(packet != NULL && h != NULL && h->type < ZL_PACKET_TYPE_COUNT && key && aead);
    ZL_ASSERT(h->sequence == (uint16_t)sequence);
    if (payload_bytes > ZL_PACKET_MAX_PAYLOAD)
        return ZL_ERR_OVERFLOW;
    zl_put_le32(p, conn_id);
    write_header(p, h);
    sealed_aad(aad, p, protocol_id);
    sealed_nonce(nonce, sequence);
    n = aead->seal(aead->ctx, p + ZL_PACKET_HEADER_SIZE, payload_bytes + ZL_PACKET_TAG_SIZE,
                   p + ZL_PACKET_HEADER_SIZE, payload_bytes, aad, sizeof aad, nonce, key);
    return n < 0 ? n : ZL_PACKET_HEADER_SIZE + n;
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

int zl_packet_sealed_id(const void *packet, size_t len, uint32_t *conn_id)
{
    const uint8_t *p = (const uint8_t *)packet;
    ZL_ASSERT(conn_id && (packet != NULL || len == 0));
    if (len < ZL_PACKET_HEADER_SIZE + ZL_PACKET_TAG_SIZE || len > ZL_MAX_PACKET ||
        p[4] >= ZL_PACKET_TYPE_COUNT)
        return 0;
    *conn_id = zl_get_le32(p);
    return 1;
}

int zl_packet_open_aead(void *packet, size_t len, uint32_t conn_id, uint64_t newest,
                        uint32_t protocol_id, const uint8_t key[ZL_AEAD_KEY_SIZE],
                        const zl_aead *aead, zl_packet_header *h, uint64_t *sequence,
                        zl_packet_drop *why)
{
    uint8_t *p = (uint8_t *)packet;
    uint8_t aad[4 + ZL_PACKET_HEADER_SIZE], nonce[ZL_AEAD_NONCE_SIZE];
    uint64_t seq;
    ZL_ASSERT(h != NULL && sequence != NULL && key && aead && (packet != NULL || len == 0));
    if (len < ZL_PACKET_HEADER_SIZE + ZL_PACKET_TAG_SIZE)
        return refuse(h, why, ZL_PACKET_DROP_SHORT, ZL_ERR_MALFORMED);
    if (len > ZL_MAX_PACKET)
        return refuse(h, why, ZL_PACKET_DROP_OVERSIZED, ZL_ERR_TRUNCATED);
    if (zl_get_le32(p) != conn_id || p[4] >= ZL_PACKET_TYPE_COUNT)
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    seq = zl_packet_widen(zl_get_le16(p + 5), newest);
    sealed_aad(aad, p, protocol_id);
    sealed_nonce(nonce, seq);
    if (aead->open(aead->ctx, p + ZL_PACKET_HEADER_SIZE, len - ZL_PACKET_HEADER_SIZE,
                   p + ZL_PACKET_HEADER_SIZE, len - ZL_PACKET_HEADER_SIZE, aad, sizeof aad, nonce,
                   key) < 0)
        return refuse(h, why, ZL_PACKET_DROP_CHECKSUM, ZL_ERR_AUTH);
    *sequence = seq;
    return accept_header(p, h, why);
}
