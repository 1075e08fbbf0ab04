/* zl_conn.h - one end of a connection: its identity, the datagram demultiplexer
 * (one CRC check per datagram), sends on the link and before it, and the
 * goodbye. Each server slot and the client embed one. */
#ifndef ZL_CONN_H
#define ZL_CONN_H

#include "zl_addr.h"
#include "zl_handshake.h"
#include "zl_link.h"

ZL_BEGIN_DECLS

/* Where datagrams go out: the HAL's send and its context (zl_platform.h),
 * all an endpoint needs of the platform. */
typedef struct zl_sender {
    void *ctx;
    int (*send)(void *ctx, const zl_addr *to, const void *data, size_t len);
} zl_sender;

/* Counters of a connection end since zl_conn_init. */
typedef struct zl_conn_stats {
    uint32_t sent;    /* datagrams sent on the link */
    uint32_t checked; /* CRC checks of received datagrams (zl_conn_open) */
} zl_conn_stats;

/* A connection end. Caller-owned; fields private but the link, which the
 * owner reads for acks and statistics. */
typedef struct zl_conn {
    zl_sender out;
    zl_addr peer;
    uint64_t nonce;   /* the client's, naming this connection attempt */
    uint32_t link_id; /* the id its linked packets are sealed under */
    zl_conn_stats stats;
    zl_link link;
} zl_conn;

/* The id a connection's linked packets are sealed under: the protocol id
 * mixed with the nonce, so only someone who saw the handshake can seal or
 * open them (the CRC is not a MAC: this stops blind spoofing only). */
uint32_t zl_connection_id(uint64_t nonce);

/* Sets up a connection end with `peer` for the attempt `nonce`, its counters
 * zeroed and no link yet (only connectionless messages until
 * zl_conn_start_link). out and peer are copied. */
void zl_conn_init(zl_conn *c, const zl_sender *out, const zl_addr *peer, uint64_t nonce);

/* The connection exists from now_us: its link starts fresh. */
void zl_conn_start_link(zl_conn *c, uint64_t now_us);

/* What zl_conn_open found a datagram to be. */
enum {
    ZL_CONN_LINKED = 1,  /* sealed for this connection (payload at
                            ZL_PACKET_HEADER_SIZE): hand it to zl_link_accept */
    ZL_CONN_UNLINKED = 2 /* sealed under ZL_PROTOCOL_ID: a handshake message */
};

/* Demultiplexes a datagram from the peer (read only, hostile bytes fine):
 * opened under this connection's id when `linked` is 1, else (or failing
 * that) under the protocol's; each try is one CRC check, counted in
 * stats.checked. Returns ZL_CONN_LINKED or ZL_CONN_UNLINKED with *h the
 * header; else the packet layer's ZL_ERR_* (with `linked`, the link counts
 * why in its drop statistics). */
int zl_conn_open(zl_conn *c, int linked, const void *packet, size_t len, zl_packet_header *h);

/* Seals a message on the link (type, next sequence, our acks) in place and
 * sends it to the peer: packet holds payload_bytes at packet +
 * ZL_PACKET_HEADER_SIZE. A negative payload_bytes (a writer's error) sends
 * nothing. Returns the datagram length or a negative ZL_ERR_*. */
int zl_conn_send(zl_conn *c, uint8_t type, uint8_t *packet, int payload_bytes, uint64_t now_us);

/* Seals a connectionless message in place: packet (caller-owned) holds
 * payload_bytes at packet + ZL_PACKET_HEADER_SIZE; the header gets type and
 * sequence, ack and ack_bits 0, the CRC ZL_PROTOCOL_ID. Returns the datagram
 * length or ZL_ERR_OVERFLOW, as zl_packet_seal. */
int zl_conn_seal_unlinked(void *packet, size_t payload_bytes, uint8_t type);

/* Seals a connectionless message (zl_conn_seal_unlinked) and sends it to
 * `to` through out, as zl_conn_send. For the handshake, before any
 * connection exists. */
int zl_conn_send_unlinked(const zl_sender *out, const zl_addr *to, uint8_t type, uint8_t *packet,
                          int payload_bytes);

/* Says goodbye: DISCONNECT with `reason` (ZL_DISCONNECT_*), sent
 * ZL_DISCONNECT_REPEAT times on the link. */
void zl_conn_disconnect(zl_conn *c, uint8_t reason, uint64_t now_us);

ZL_END_DECLS

#endif
