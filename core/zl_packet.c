/* zl_packet.c - writes and checks the packet header byte by byte in little-
 * endian order, so the wire format is the same on every host. */
#include "zl_packet.h"

#include <string.h>

#include "zl_crc32.h"

#define CRC_SIZE 4

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint16_t get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

/* The protocol id goes into the CRC first, as if it were sent: both ends
 * must agree on it for any packet to pass. */
static uint32_t packet_crc(const uint8_t *packet, size_t len, uint32_t protocol_id)
{
    uint8_t id[4];
    put_le32(id, protocol_id);
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
    p[4] = h->type;
    put_le16(p + 5, h->sequence);
    put_le16(p + 7, h->ack);
    put_le32(p + 9, h->ack_bits);
    put_le32(p, packet_crc(p, len, protocol_id));
    return (int)len;
}

static int refuse(zl_packet_header *h, zl_packet_drop *why, zl_packet_drop reason, int code)
{
    memset(h, 0, sizeof *h);
    if (why != NULL)
        *why = reason;
    return code;
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
    if (get_le32(p) != packet_crc(p, len, protocol_id))
        return refuse(h, why, ZL_PACKET_DROP_CHECKSUM, ZL_ERR_MALFORMED);
    /* No writer sets the high bits of the type byte; refusing them keeps
     * exactly one encoding for every header. */
    if (p[4] >= ZL_PACKET_TYPE_COUNT)
        return refuse(h, why, ZL_PACKET_DROP_FORMAT, ZL_ERR_MALFORMED);
    h->type = p[4];
    h->sequence = get_le16(p + 5);
    h->ack = get_le16(p + 7);
    h->ack_bits = get_le32(p + 9);
    if (why != NULL)
        *why = ZL_PACKET_DROP_NONE;
    return ZL_PACKET_HEADER_SIZE;
}
