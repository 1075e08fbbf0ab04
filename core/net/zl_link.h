/* zl_link.h - one connection's packet bookkeeping: sequence numbers, acks,
 * refusal of replayed packets, round-trip time, loss both ways, bandwidth.
 * Not part of the API (docs/ARCHITECTURE.md): public because every connection,
 * which the application allocates inside zl_server and zl_client, embeds a
 * link; it reads zl_link_stats in their stats and calls none of it. */
#ifndef ZL_LINK_H
#define ZL_LINK_H

#include "zl_packet.h"
#include "zl_ring.h"

ZL_BEGIN_DECLS

/* Every packet acknowledges the newest sequence received and the 31 before
 * it (zl_packet.h, ack_bits). A sent packet still unacknowledged once the
 * peer's ack has moved this far past it is counted lost: the peer can no
 * longer acknowledge it, except through an older ack arriving late. */
#define ZL_LINK_ACK_WINDOW 32
/* A received sequence is accepted once if it is less than this many behind
 * the newest received; older ones are refused because it is no longer known
 * whether they arrived before. A sequence that leaves this window without
 * having arrived is counted lost. */
#define ZL_LINK_RECEIVE_WINDOW 64
/* Bandwidth is the bytes of the last four completed quarter seconds. */
#define ZL_LINK_RATE_BUCKETS 4
#define ZL_LINK_RATE_BUCKET_US 250000u
/* Round-trip samples are clamped to this (16.8 s) so the averages cannot
 * overflow when a clock misbehaves. */
#define ZL_LINK_MAX_RTT_US (1u << 24)

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_LINK_SENT_CAPACITY) && ZL_LINK_SENT_CAPACITY >= 64 &&
                     ZL_LINK_SENT_CAPACITY <= 32768,
                 zl_link_sent_capacity);
ZL_STATIC_ASSERT(ZL_LINK_LOSS_SHIFT >= 1 && ZL_LINK_LOSS_SHIFT <= 12, zl_link_loss_shift);

/* Sequences of our packets that one received header acknowledged for the
 * first time, oldest first. The layers above learn here which of their
 * messages (snapshots, commands) the peer has. */
typedef struct zl_link_acks {
    uint32_t count;
    uint16_t sequence[ZL_LINK_ACK_WINDOW];
} zl_link_acks;

/* A snapshot of a link's measurements (zl_link_get_stats). Counters are
 * totals since zl_link_init and wrap at 2^32. */
typedef struct zl_link_stats {
    uint32_t rtt_us;          /* smoothed round trip (1/8 per sample, like
                                 TCP's SRTT); 0 before the first sample */
    uint32_t jitter_us;       /* mean deviation of the round trip (1/4 per
                                 sample, like TCP's RTTVAR) */
    uint32_t loss_out_q16;    /* share of our packets never acknowledged,
                                 65536 = all; smoothed per packet */
    uint32_t loss_in_q16;     /* share of the peer's packets that never
                                 arrived, 65536 = all; smoothed per packet */
    uint32_t bytes_out_per_s; /* packet bytes (UDP payload) sent ... */
    uint32_t bytes_in_per_s;  /* ... and accepted, over the last second */
    uint32_t bytes_sent;      /* packet bytes (UDP payload: header, payload
                                 and tag) sent ... */
    uint32_t bytes_received;  /* ... and accepted, since zl_link_init */
    uint32_t packets_sent;
    uint32_t packets_received; /* accepted; drops are counted apart */
    uint32_t packets_acked;    /* ours, each counted once */
    uint32_t packets_lost_out; /* ours, judged lost as described above */
    uint32_t packets_lost_in;  /* the peer's, judged lost */
    uint32_t dropped[ZL_PACKET_DROP_COUNT]; /* by reason; [NONE] stays 0 */
} zl_link_stats;

/* Private: one sent packet. */
typedef struct zl_link_sent {
    uint32_t send_us; /* low 32 bits of the send time */
    uint16_t ack;     /* the ack it carried ... */
    uint8_t ack_sent; /* ... 1 when that meant something (ack_bits != 0) */
    uint8_t acked;
} zl_link_sent;

ZL_SEQBUF_TYPE(zl_link_sent_buffer, zl_link_sent, ZL_LINK_SENT_CAPACITY);

/* One connection's link. Caller-owned (static or inside a connection);
 * every field is private: use the functions. */
typedef struct zl_link {
    uint16_t next_sequence;
    uint16_t unjudged;      /* oldest sent sequence not yet judged lost or not */
    zl_link_sent_buffer sent;
    /* Bit i: sequence acks_seen_ack - i needs no look-up when acknowledged
     * again: it is acknowledged already or not in `sent`. Sending a
     * sequence clears its bit. */
    uint32_t acks_seen;
    uint16_t acks_seen_ack;
    /* For short header fields (zl_packet.h): the newest of our sequences
     * the peer acknowledged, the ack our packet of that sequence carried,
     * and the newest ack the peer sent us, each with whether it exists. */
    uint16_t acked_newest, acked_ack, peer_ack;
    uint8_t have_acked, have_acked_ack, have_peer_ack;
    uint16_t received_newest;
    uint8_t received_span;  /* window positions since the oldest packet
                               received: 0..64; the rest predate the link */
    uint64_t received_mask; /* bit i: sequence received_newest - i arrived */
    uint8_t have_rtt;
    uint32_t srtt8;         /* smoothed round trip x 8, in us */
    uint32_t rttvar4;       /* mean deviation x 4, in us */
    uint64_t rate_start_us; /* start of the quarter second being counted */
    uint32_t rate_in_now, rate_out_now;
    uint32_t rate_in[ZL_LINK_RATE_BUCKETS], rate_out[ZL_LINK_RATE_BUCKETS];
    uint8_t rate_slot;      /* the bucket the next completed quarter fills */
    zl_link_stats stats;    /* counters and loss; the rest is derived */
} zl_link;

/* Starts a fresh link at time now_us (microseconds, the HAL's clock): no
 * packet sent or received, the first sequence is 0. Every later now_us
 * must not be earlier than the previous one. */
void zl_link_init(zl_link *l, uint64_t now_us);

/* The sequence the next zl_link_send will give its packet, so a caller can
 * remember what it put into which packet. */
uint16_t zl_link_next_sequence(const zl_link *l);

/* What received headers' short fields are widened against (zl_packet.h):
 * the newest sequence received and the newest ack taken from the peer.
 * Inline: every datagram received asks, before its check. */
static inline zl_packet_near zl_link_near(const zl_link *l)
{
    zl_packet_near near;
    near.sequence = l->received_newest;
    near.ack = l->peer_ack;
    return near;
}

/* Finishes and records an outgoing packet. packet (caller-owned) holds
 * payload_bytes of payload at packet + ZL_PACKET_HEADER_SIZE; this writes
 * the header (type, the next sequence, our acks; zl_packet_seal moves the
 * payload up against it) and seals it with
 * protocol_id. Returns the datagram length to send, or ZL_ERR_OVERFLOW when
 * payload_bytes exceeds ZL_PACKET_MAX_PAYLOAD (nothing is written or
 * recorded). type >= ZL_PACKET_TYPE_COUNT is a programmer error. */
int zl_link_send(zl_link *l, uint8_t type, void *packet, size_t payload_bytes,
                 uint32_t protocol_id, uint64_t now_us);

/* zl_link_send in two halves, for a caller that seals the packet itself
 * (zl_conn, under session keys): the header the next packet carries (type,
 * the next sequence, our acks, which of them go short; nothing changes),
 * then, once that packet of
 * len bytes is sealed and about to go out, zl_link_record_sent (the sequence
 * advances). h must be the header zl_link_next_header gave, unchanged. */
void zl_link_next_header(const zl_link *l, uint8_t type, zl_packet_header *h);
void zl_link_record_sent(zl_link *l, const zl_packet_header *h, size_t len, uint64_t now_us);

/* Takes a datagram of len bytes that arrived for this connection (read
 * only; hostile bytes are fine). Returns the header's length, the offset
 * of the payload, with *h the header and acks (may be NULL) the newly
 * acknowledged sequences. Otherwise the datagram is dropped and counted in
 * stats.dropped, *h is zeroed, acks->count is 0 and the result is
 * ZL_ERR_TRUNCATED (oversized), ZL_ERR_MALFORMED (short, failed CRC,
 * reserved bits) or ZL_ERR_DUPLICATE (a sequence already received, or older
 * than ZL_LINK_RECEIVE_WINDOW). Acks naming sequences we never sent are
 * ignored. Replays older than half the sequence space (32768 packets) look
 * new and cannot be told apart; the CRC is not a MAC, so this refuses
 * accidental and blind replays, not a forger. */
int zl_link_receive(zl_link *l, const void *packet, size_t len, uint32_t protocol_id,
                    uint64_t now_us, zl_packet_header *h, zl_link_acks *acks);

/* The second half of zl_link_receive, for a caller that opened the
 * datagram itself (zl_conn: one CRC check per datagram): takes the header
 * h of a datagram of len bytes that passed zl_packet_open under this
 * link's id. Returns ZL_OK, acks (may be NULL) receiving the newly
 * acknowledged sequences; or ZL_ERR_DUPLICATE, counted (a sequence already
 * received, or older than ZL_LINK_RECEIVE_WINDOW). */
/* Why a packet of `sequence` would be refused by the replay window now:
 * ZL_PACKET_DROP_DUPLICATE or ZL_PACKET_DROP_STALE, or ZL_PACKET_DROP_NONE
 * when zl_link_accept would take it. Records nothing: a receiver that may
 * still refuse a fresh packet for its own reasons (a rate limit) asks
 * first, so the packet is not acknowledged and its sender sends again. */
zl_packet_drop zl_link_check(const zl_link *l, uint16_t sequence);

int zl_link_accept(zl_link *l, const zl_packet_header *h, size_t len, uint64_t now_us,
                   zl_link_acks *acks);

/* Counts a datagram that failed zl_packet_open for `why` in stats.dropped
 * (the caller opened it: zl_link_accept's users). */
void zl_link_count_drop(zl_link *l, zl_packet_drop why);

/* 1 when header h acknowledges a sequence this link never sent: one ahead
 * of the newest, or one from before the first while fewer than half the
 * sequence space have gone out; else 0. zl_link_accept ignores such acks,
 * so they cannot fake what the layers above learn from acks (a snapshot
 * baseline); an honest peer never sends one, so a caller may count them. */
int zl_link_acks_unsent(const zl_link *l, const zl_packet_header *h);

/* Fills *out with the link's measurements at now_us (which ends any
 * quarter seconds of bandwidth that have passed). */
void zl_link_get_stats(zl_link *l, uint64_t now_us, zl_link_stats *out);

ZL_END_DECLS

#endif
