/* zl_conn.h - one end of a connection: its identity, the datagram demultiplexer
 * (one CRC check per datagram), sends on the link and before it, and the
 * goodbye. Each server slot and the client embed one.
 * Not part of the API (docs/ARCHITECTURE.md): public because every server slot
 * and the client embed one, which the application allocates; it reads
 * zl_seal_stats in their stats and calls none of it. */
#ifndef ZL_CONN_H
#define ZL_CONN_H

#include "zl_addr.h"
#include "zl_crypto.h"
#include "zl_link.h"
#include "zl_msg.h"
#include "zl_reliable.h"

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
    uint32_t opened;  /* sealed datagrams that authenticated */
} zl_conn_stats;

/* What sealing did on one connection: what it cost and what it turned
 * away. All 0 in plain mode. */
typedef struct zl_seal_stats {
    uint32_t sealed;   /* packets sent sealed, ZL_PACKET_TAG_SIZE bytes of
                          tag each */
    uint32_t opened;   /* packets received that authenticated, a tag each
                          (replays among them: see replayed) */
    uint32_t forged;   /* packets with the connection's id whose tag failed:
                          forged, tampered or truncated */
    uint32_t replayed; /* packets that authenticated, then met the replay
                          window: copies, or too old to tell */
} zl_seal_stats;

/* A connection end. Caller-owned; fields private but the link, which the
 * owner reads for acks and statistics, and the counters. */
typedef struct zl_conn {
    zl_sender out;
    zl_addr peer;
    uint64_t nonce;   /* the client's, naming this connection attempt */
    uint32_t link_id; /* the id its linked packets are sealed under (plain),
                         or carry in clear (sealed) */
    zl_conn_stats stats;
    uint8_t sealed;   /* 1: session keys seal every linked packet */
    uint8_t server_end; /* sealed: 1 at the server, whose packets carry
                           no clear id; the client's do */
    uint8_t send_key[ZL_AEAD_KEY_SIZE], receive_key[ZL_AEAD_KEY_SIZE];
    uint64_t send_sequence;  /* the next packet's full sequence */
    uint64_t receive_newest; /* the newest full sequence authenticated */
    zl_aead aead;
    zl_link link;
} zl_conn;

/* c's sealing counters into *out (all 0 for a plain connection). */
void zl_conn_get_seal_stats(const zl_conn *c, zl_seal_stats *out);

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

/* From now on every linked packet is sealed (zl_packet_seal_aead) with
 * send_key and opened with receive_key (the token's session keys, each
 * end's own direction first) through aead (copied; NULL: the built-in
 * ChaCha20-Poly1305). server_end is 1 at the server, whose packets leave
 * the connection id out (only authenticated), 0 at the client, whose
 * packets carry it in clear. Call it right after zl_conn_start_link. The
 * keys are copied and wiped from the conn by zl_conn_init. */
void zl_conn_seal_with(zl_conn *c, const uint8_t send_key[ZL_AEAD_KEY_SIZE],
                       const uint8_t receive_key[ZL_AEAD_KEY_SIZE], const zl_aead *aead,
                       int server_end);

/* What zl_conn_open found a datagram to be. */
enum {
    ZL_CONN_LINKED = 1,  /* sealed for this connection: hand it to
                            zl_link_accept */
    ZL_CONN_UNLINKED = 2 /* sealed under ZL_PROTOCOL_ID: a handshake message */
};

/* A datagram demultiplexed: its header and its payload in clear. */
typedef struct zl_conn_datagram {
    zl_packet_header h;
    const uint8_t *payload; /* inside the caller's packet */
    size_t payload_len;
} zl_conn_datagram;

/* Demultiplexes a datagram of len bytes from the peer (hostile bytes fine):
 * opened as this connection's when `linked` is 1 (its CRC under the
 * connection's id, or when sealed its tag under the session key, the
 * payload then decrypted in place: packet is the caller's and writable;
 * nothing is written unless the tag verifies), else (or failing that) under
 * the protocol's id; each try is one check, counted in stats.checked.
 * Returns ZL_CONN_LINKED or ZL_CONN_UNLINKED with *d filled; else the packet
 * layer's ZL_ERR_* (with `linked`, the link counts why in its drop
 * statistics; a failed tag as ZL_PACKET_DROP_CHECKSUM). */
int zl_conn_open(zl_conn *c, int linked, uint8_t *packet, size_t len, zl_conn_datagram *d);

/* For opening several datagrams' keystreams in one pass: fills a->key and
 * a->nonce with what zl_conn_open would open the len bytes at packet with
 * as c's, as c stands now, and returns 1, when c seals with the built-in
 * AEAD and the bytes could be a sealed packet of it; else returns 0. Reads
 * only (c and packet unchanged); hostile bytes fine. */
int zl_conn_ahead(const zl_conn *c, const uint8_t *packet, size_t len, zl_aead_ahead *a);

/* zl_conn_open, taking the keystream head from *a (zl_aead_ahead_make)
 * when it was made for the key and nonce the open uses (a may be NULL):
 * the same results and counts either way. */
int zl_conn_open_ahead(zl_conn *c, int linked, uint8_t *packet, size_t len, zl_conn_datagram *d,
                       const zl_aead_ahead *a);

/* Seals a message on the link (type, next sequence, our acks) in place and
 * sends it to the peer: packet holds payload_bytes at packet +
 * ZL_PACKET_HEADER_SIZE. A negative payload_bytes (a writer's error) sends
 * nothing. Returns the datagram length or a negative ZL_ERR_*. */
int zl_conn_send(zl_conn *c, uint8_t type, uint8_t *packet, int payload_bytes, uint64_t now_us);

/* Bytes the next datagram of this connection spends besides its payload:
 * its header (as long as the acks it will carry make it), and the tag when
 * it is sealed. */
uint32_t zl_conn_overhead(const zl_conn *c);

/* zl_conn_send to another address than the peer's: a path challenge
 * (zl_server) goes to the address it tests. */
int zl_conn_send_to(zl_conn *c, const zl_addr *to, uint8_t type, uint8_t *packet,
                    int payload_bytes, uint64_t now_us);

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

/* Handshake replies to a token holder (CHALLENGE, ACCEPT) end in a
 * ZL_PACKET_TAG_SIZE-byte tag: XChaCha20-Poly1305 over no plaintext, the
 * payload as associated data, under the token's server-to-client key, so
 * nobody without the token can forge one. Its 24-byte nonce, which both
 * ends build: the reply's type, the cookie it carries or answers, and for
 * an ACCEPT the server tick it names; replies that differ in any byte get
 * different nonces (the cookie covers the client's nonce, address and
 * window), and none can meet the packets' 12-byte nonces, which are used
 * with the key itself. */
void zl_conn_reply_nonce(uint8_t nonce[ZL_XAEAD_NONCE_SIZE], uint8_t type, uint64_t cookie,
                         uint32_t tick);

/* Appends the tag of the payload_bytes at payload (room for
 * ZL_PACKET_TAG_SIZE more) under key and nonce. Returns the payload's new
 * length, or payload_bytes when it is negative (a writer's error). */
int zl_conn_tag_reply(uint8_t *payload, int payload_bytes, const uint8_t key[ZL_AEAD_KEY_SIZE],
                      const uint8_t nonce[ZL_XAEAD_NONCE_SIZE]);

/* 1 when the last ZL_PACKET_TAG_SIZE of the len bytes at payload are the
 * tag of the others under key and nonce; 0 otherwise (checked in constant
 * time, nothing written). */
int zl_conn_reply_tagged(const uint8_t *payload, size_t len, const uint8_t key[ZL_AEAD_KEY_SIZE],
                         const uint8_t nonce[ZL_XAEAD_NONCE_SIZE]);

/* How long a message sent on the link at now_us waits for its
 * acknowledgement before it goes again: a round trip and a quarter (at
 * least 20 ms; 100 ms before the link knows its round trip). */
uint32_t zl_conn_resend_us(zl_conn *c, uint64_t now_us);

/* Sends a RELIABLE packet with r's due messages (zl_reliable_write) when
 * any is due at now_us: those never sent, and those not acknowledged
 * zl_conn_resend_us after they went. Returns the datagram length, 0 when
 * nothing was due, or a negative ZL_ERR_*. */
int zl_conn_send_messages(zl_conn *c, zl_reliable *r, uint64_t now_us);

/* Says goodbye: DISCONNECT with `reason` (ZL_DISCONNECT_*), sent
 * ZL_DISCONNECT_REPEAT times on the link. */
void zl_conn_disconnect(zl_conn *c, uint8_t reason, uint64_t now_us);

ZL_END_DECLS

#endif
