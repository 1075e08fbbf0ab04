/* zl_conn.c - a connection end: demultiplexing under the connection's id or
 * the protocol's, sealing and sending, and the repeated goodbye. */
#include <string.h>

#include "zl_bytes.h"
#include "zl_conn.h"

uint32_t zl_connection_id(uint64_t nonce)
{
    return ZL_PROTOCOL_ID ^ (uint32_t)nonce ^ (uint32_t)(nonce >> 32);
}

void zl_conn_init(zl_conn *c, const zl_sender *out, const zl_addr *peer, uint64_t nonce)
{
    ZL_ASSERT(c && out && out->send && peer);
    zl_crypto_wipe(c, sizeof *c); /* a reused conn forgets its keys */
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

void zl_conn_seal_with(zl_conn *c, const uint8_t send_key[ZL_AEAD_KEY_SIZE],
                       const uint8_t receive_key[ZL_AEAD_KEY_SIZE], const zl_aead *aead,
                       int server_end)
{
    unsigned i;
    ZL_ASSERT(c && send_key && receive_key);
    c->sealed = 1;
    c->server_end = (uint8_t)(server_end != 0);
    /* A loop, not memcpy: the sanitizer builds' null-check path made GCC
     * see a copy to address 0 there. */
    for (i = 0; i < ZL_AEAD_KEY_SIZE; i++) {
        c->send_key[i] = send_key[i];
        c->receive_key[i] = receive_key[i];
    }
    /* Both start at the link's first sequence, 0, and advance with it. */
    c->send_sequence = zl_link_next_sequence(&c->link);
    c->receive_newest = 0;
    if (aead)
        c->aead = *aead;
    else
        zl_aead_default(&c->aead);
}

void zl_conn_get_seal_stats(const zl_conn *c, zl_seal_stats *out)
{
    const uint32_t *dropped;
    ZL_ASSERT(c && out);
    memset(out, 0, sizeof *out);
    if (!c->sealed)
        return;
    dropped = c->link.stats.dropped;
    /* Every packet of a sealed connection is sealed; a packet that fails
     * its tag is counted by the link as a failed check, and the link's
     * replay window judges only packets that authenticated. */
    out->sealed = c->stats.sent;
    out->opened = c->stats.opened;
    out->forged = dropped[ZL_PACKET_DROP_CHECKSUM];
    out->replayed = dropped[ZL_PACKET_DROP_DUPLICATE] + dropped[ZL_PACKET_DROP_STALE];
}

/* The linked try: 1 when the datagram is this connection's. */
static int open_linked(zl_conn *c, uint8_t *packet, size_t len, zl_conn_datagram *d,
                       zl_packet_drop *why, const zl_aead *aead)
{
    zl_packet_near near;
    uint64_t sequence;
    int at;
    c->stats.checked++;
    near = zl_link_near(&c->link);
    if (!c->sealed) {
        at = zl_packet_open(packet, len, c->link_id, &near, &d->h, why);
        if (at < 0)
            return 0;
        d->payload = packet + at;
        d->payload_len = len - (size_t)at;
        return 1;
    }
    /* Only the client's packets carry the id in clear: the server needs it
     * to follow a client to a new address. */
    at = zl_packet_open_aead(packet, len, c->link_id, c->server_end, c->receive_newest, &near,
                             ZL_PROTOCOL_ID, c->receive_key, aead, &d->h, &sequence, why);
    if (at < 0)
        return 0;
    if (sequence > c->receive_newest)
        c->receive_newest = sequence;
    c->stats.opened++;
    d->payload = packet + at;
    d->payload_len = len - (size_t)at - ZL_PACKET_TAG_SIZE;
    return 1;
}

int zl_conn_open(zl_conn *c, int linked, uint8_t *packet, size_t len, zl_conn_datagram *d)
{
    return zl_conn_open_ahead(c, linked, packet, len, d, NULL);
}

int zl_conn_ahead(const zl_conn *c, const uint8_t *packet, size_t len, zl_aead_ahead *a)
{
    zl_packet_near near;
    ZL_ASSERT(c && a && (packet || len == 0));
    near = zl_link_near(&c->link);
    if (!c->sealed || !zl_aead_is_default(&c->aead) ||
        !zl_packet_sealed_nonce(packet, len, c->server_end, c->receive_newest, &near, a->nonce))
        return 0;
    memcpy(a->key, c->receive_key, ZL_AEAD_KEY_SIZE);
    return 1;
}

int zl_conn_open_ahead(zl_conn *c, int linked, uint8_t *packet, size_t len, zl_conn_datagram *d,
                       const zl_aead_ahead *a)
{
    zl_packet_drop why = ZL_PACKET_DROP_NONE;
    zl_aead with;
    const zl_aead *aead = &c->aead;
    int at;
    ZL_ASSERT(c && d && (packet || len == 0));
    if (a != NULL && zl_aead_is_default(&c->aead)) {
        zl_aead_with_ahead(&with, a);
        aead = &with;
    }
    /* A connection's packets are sealed for it; a handshake retry (a lost
     * ACCEPT) under the protocol's id. */
    if (linked && open_linked(c, packet, len, d, &why, aead))
        return ZL_CONN_LINKED;
    c->stats.checked++;
    at = zl_packet_open(packet, len, ZL_PROTOCOL_ID, NULL, &d->h, NULL);
    if (at >= 0) {
        d->payload = packet + at;
        d->payload_len = len - (size_t)at;
        return ZL_CONN_UNLINKED;
    }
    if (linked)
        zl_link_count_drop(&c->link, why);
    return at;
}

int zl_conn_send(zl_conn *c, uint8_t type, uint8_t *packet, int payload_bytes, uint64_t now_us)
{
    ZL_ASSERT(c);
    return zl_conn_send_to(c, &c->peer, type, packet, payload_bytes, now_us);
}

uint32_t zl_conn_overhead(const zl_conn *c)
{
    zl_packet_header h;
    ZL_ASSERT(c);
    zl_link_next_header(&c->link, 0, &h);
    if (!c->sealed)
        return (uint32_t)zl_packet_header_size(&h, 1);
    return (uint32_t)zl_packet_header_size(&h, !c->server_end) + ZL_PACKET_TAG_SIZE;
}

int zl_conn_send_to(zl_conn *c, const zl_addr *to, uint8_t type, uint8_t *packet,
                    int payload_bytes, uint64_t now_us)
{
    zl_packet_header h;
    int len;
    ZL_ASSERT(c && to && packet);
    if (payload_bytes < 0)
        return payload_bytes;
    zl_link_next_header(&c->link, type, &h);
    if (c->sealed)
        len = zl_packet_seal_aead(packet, (size_t)payload_bytes, &h, c->link_id,
                                  !c->server_end, c->send_sequence, ZL_PROTOCOL_ID, c->send_key, &c->aead);
    else
        len = zl_packet_seal(packet, (size_t)payload_bytes, &h, c->link_id);
    if (len < 0)
        return len;
    zl_link_record_sent(&c->link, &h, (size_t)len, now_us);
    c->send_sequence++;
    c->stats.sent++;
    c->out.send(c->out.ctx, to, packet, (size_t)len);
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

void zl_conn_reply_nonce(uint8_t nonce[ZL_XAEAD_NONCE_SIZE], uint8_t type, uint64_t cookie,
                         uint32_t tick)
{
    ZL_ASSERT(nonce);
    memset(nonce, 0, ZL_XAEAD_NONCE_SIZE);
    memcpy(nonce, "zlreply", 7);
    nonce[7] = type;
    zl_put_le(nonce + 8, cookie, 8);
    zl_put_le(nonce + 16, tick, 4);
}

int zl_conn_tag_reply(uint8_t *payload, int payload_bytes, const uint8_t key[ZL_AEAD_KEY_SIZE],
                      const uint8_t nonce[ZL_XAEAD_NONCE_SIZE])
{
    ZL_ASSERT(payload && key && nonce);
    if (payload_bytes < 0)
        return payload_bytes;
    /* The payload is the associated data; the tag alone is written. */
    return payload_bytes + zl_xchacha20poly1305_seal(payload + payload_bytes, ZL_PACKET_TAG_SIZE,
                                                     NULL, 0, payload, (size_t)payload_bytes,
                                                     nonce, key);
}

int zl_conn_reply_tagged(const uint8_t *payload, size_t len, const uint8_t key[ZL_AEAD_KEY_SIZE],
                         const uint8_t nonce[ZL_XAEAD_NONCE_SIZE])
{
    ZL_ASSERT(key && nonce && (payload || len == 0));
    if (len < ZL_PACKET_TAG_SIZE)
        return 0;
    return zl_xchacha20poly1305_open(NULL, 0, payload + len - ZL_PACKET_TAG_SIZE,
                                     ZL_PACKET_TAG_SIZE, payload, len - ZL_PACKET_TAG_SIZE, nonce,
                                     key) == 0;
}

uint32_t zl_conn_resend_us(zl_conn *c, uint64_t now_us)
{
    zl_link_stats ls;
    uint32_t resend_us;
    ZL_ASSERT(c);
    zl_link_get_stats(&c->link, now_us, &ls);
    resend_us = ls.rtt_us ? ls.rtt_us + ls.rtt_us / 4u : 100000u;
    return resend_us < 20000u ? 20000u : resend_us;
}

int zl_conn_send_messages(zl_conn *c, zl_reliable *r, uint64_t now_us)
{
    uint8_t packet[ZL_MAX_PACKET];
    zl_bitwriter w;
    uint32_t resend_us;
    int n;
    ZL_ASSERT(c && r);
    resend_us = zl_conn_resend_us(c, now_us);
    if (!zl_reliable_due(r, now_us, resend_us))
        return 0;
    zl_bitwriter_init(&w, packet + ZL_PACKET_HEADER_SIZE, ZL_PACKET_MAX_PAYLOAD);
    n = zl_reliable_write(r, &w, zl_link_next_sequence(&c->link), now_us, resend_us);
    if (n <= 0)
        return n;
    return zl_conn_send(c, ZL_MSG_RELIABLE, packet, zl_bitwriter_finish(&w), now_us);
}

void zl_conn_disconnect(zl_conn *c, uint8_t reason, uint64_t now_us)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_DISCONNECT_SIZE + ZL_PACKET_TAG_SIZE];
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
