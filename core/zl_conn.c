/* zl_conn.c - a connection end: demultiplexing under the connection's id or
 * the protocol's, sealing and sending, and the repeated goodbye. */
#include <string.h>

#include "zl_conn.h"

uint32_t zl_connection_id(uint64_t nonce)
{
    return ZL_PROTOCOL_ID ^ (uint32_t)nonce ^ (uint32_t)(nonce >> 32);
}

void zl_conn_init(zl_conn *c, const zl_sender *out, const zl_addr *peer, uint64_t nonce)
{
    ZL_ASSERT(c && out && out->send && peer);
    memset(c, 0, sizeof *c);
    c->out = *out;
    c->peer = *peer;
    c->nonce = nonce;
    c->link_id = zl_connection_id(nonce);
}

void zl_conn_start_link(zl_conn *c, uint64_t now_us)
{
    ZL_ASSERT(c);
    zl_link_init(&c->link, now_us);
}

int zl_conn_open(zl_conn *c, int linked, const void *packet, size_t len, zl_packet_header *h)
{
    zl_packet_drop why = ZL_PACKET_DROP_NONE;
    int at;
    ZL_ASSERT(c && h);
    /* A connection's packets are sealed under its own id; a handshake
     * retry (a lost ACCEPT) under the protocol's. */
    if (linked) {
        c->stats.checked++;
        if (zl_packet_open(packet, len, c->link_id, h, &why) >= 0)
            return ZL_CONN_LINKED;
    }
    c->stats.checked++;
    at = zl_packet_open(packet, len, ZL_PROTOCOL_ID, h, NULL);
    if (at >= 0)
        return ZL_CONN_UNLINKED;
    if (linked)
        zl_link_count_drop(&c->link, why);
    return at;
}

int zl_conn_send(zl_conn *c, uint8_t type, uint8_t *packet, int payload_bytes, uint64_t now_us)
{
    int len;
    ZL_ASSERT(c && packet);
    if (payload_bytes < 0)
        return payload_bytes;
    len = zl_link_send(&c->link, type, packet, (size_t)payload_bytes, c->link_id, now_us);
    if (len < 0)
        return len;
    c->stats.sent++;
    c->out.send(c->out.ctx, &c->peer, packet, (size_t)len);
    return len;
}

int zl_conn_seal_unlinked(void *packet, size_t payload_bytes, uint8_t type)
{
    zl_packet_header h;
    memset(&h, 0, sizeof h);
    h.type = type;
    return zl_packet_seal(packet, payload_bytes, &h, ZL_PROTOCOL_ID);
}

int zl_conn_send_unlinked(const zl_sender *out, const zl_addr *to, uint8_t type, uint8_t *packet,
                          int payload_bytes)
{
    int len;
    ZL_ASSERT(out && to && packet);
    if (payload_bytes < 0)
        return payload_bytes;
    len = zl_conn_seal_unlinked(packet, (size_t)payload_bytes, type);
    if (len > 0)
        out->send(out->ctx, to, packet, (size_t)len);
    return len;
}

void zl_conn_disconnect(zl_conn *c, uint8_t reason, uint64_t now_us)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_DISCONNECT_SIZE];
    zl_msg_disconnect m;
    int i;
    ZL_ASSERT(c);
    m.nonce = c->nonce;
    m.reason = reason;
    for (i = 0; i < ZL_DISCONNECT_REPEAT; i++)
        zl_conn_send(c, ZL_MSG_DISCONNECT, packet,
                     zl_msg_write(ZL_MSG_DISCONNECT, packet + ZL_PACKET_HEADER_SIZE,
                                  ZL_DISCONNECT_SIZE, &m),
                     now_us);
}
