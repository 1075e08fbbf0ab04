/* zl_reliable.h - a reliable, ordered channel of small messages over one
 * connection (chat, scores, round state, a kill feed): numbered, resent
 * until the link reports them acknowledged, handed over in order exactly once.
 * Not part of the API (docs/ARCHITECTURE.md): public because the endpoints
 * embed a channel per connection, which the application allocates; it reads
 * zl_reliable_stats in their stats and sends and receives messages through
 * zl_server.h and zl_client.h, calling none of it. */
#ifndef ZL_RELIABLE_H
#define ZL_RELIABLE_H

#include "zl_bits.h"
#include "zl_link.h"

ZL_BEGIN_DECLS

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_RELIABLE_MESSAGES) && ZL_RELIABLE_MESSAGES >= 2 &&
                     ZL_RELIABLE_MESSAGES <= 1024,
                 zl_reliable_messages_pow2);
ZL_STATIC_ASSERT(ZL_RELIABLE_MESSAGE_MAX >= 1 && ZL_RELIABLE_MESSAGE_MAX <= 1024,
                 zl_reliable_message_max);

/* The model (Glenn Fiedler's reliable.io, Lightyear's channels). Each side
 * numbers the messages it sends (16 bits, wrapping). A RELIABLE packet
 * carries the oldest messages not yet acknowledged that are due: never sent,
 * or last sent longer ago than the resend delay. The sender remembers which
 * packet sequence carried which messages; when the link reports that packet
 * acknowledged (zl_link_acks, which every packet's header carries both
 * ways), those messages are done and leave the queue. The receiver keeps a
 * window of ZL_RELIABLE_MESSAGES numbers from the next one it will hand
 * over: it stores messages that arrive early, drops (and counts) copies and
 * anything outside the window, and hands the application each message once,
 * in order. Wire, per packet: a count (bits for ZL_RELIABLE_MESSAGES), the
 * first message's number (16 bits), then each message: its number's offset
 * from the first, its length (bits for ZL_RELIABLE_MESSAGE_MAX) and its
 * bytes. */

/* Measurements of a channel; counters only grow. */
typedef struct zl_reliable_stats {
    uint32_t sent;          /* messages queued by zl_reliable_send */
    uint32_t refused_full;  /* sends refused: the queue was full */
    uint32_t transmissions; /* copies put into packets, resends included */
    uint32_t acked;         /* messages the peer acknowledged */
    uint32_t delivered;     /* messages handed to the application */
    uint32_t duplicates;    /* copies of messages already held or handed over */
    uint32_t out_of_window; /* numbers too far ahead to hold: dropped */
    uint32_t malformed;     /* blocks whose bytes did not decode */
    uint32_t bits_sent;     /* of the blocks written, resends included */
    uint32_t bits_received; /* of the blocks read, copies included */
} zl_reliable_stats;

/* Private: one message. */
typedef struct zl_reliable_message {
    uint16_t id;
    uint16_t len;
    uint8_t used;
    uint64_t sent_us; /* last put into a packet; 0: never */
    uint8_t data[ZL_RELIABLE_MESSAGE_MAX];
} zl_reliable_message;

/* Private: which messages one sent packet carried. */
typedef struct zl_reliable_packet {
    uint16_t sequence; /* the link's */
    uint8_t used;
    uint8_t count;
    uint16_t first;    /* id of the first; then `count` consecutive ids at most */
    uint32_t mask;     /* bit i: message first + i was in it */
} zl_reliable_packet;

/* A channel, one per connection end. Caller-owned; all-zero bytes (or
 * zl_reliable_init) is an empty channel. Fields private but stats. */
typedef struct zl_reliable {
    uint16_t next_id;       /* number of the next message sent */
    uint16_t oldest;        /* oldest number not acknowledged */
    uint16_t expect;        /* next number to hand over */
    zl_reliable_stats stats;
    zl_reliable_message out[ZL_RELIABLE_MESSAGES];  /* by id & (N - 1) */
    zl_reliable_message in[ZL_RELIABLE_MESSAGES];   /* by id & (N - 1) */
    zl_reliable_packet packets[ZL_RELIABLE_MESSAGES]; /* by sequence & (N - 1) */
} zl_reliable;

/* Empties the channel: no message either way, numbering from 0. */
void zl_reliable_init(zl_reliable *r);

/* Queues len bytes (copied) for the peer. ZL_OK; ZL_ERR_INVALID for len 0
 * or above ZL_RELIABLE_MESSAGE_MAX; ZL_ERR_FULL when ZL_RELIABLE_MESSAGES
 * messages wait for acknowledgement (nothing queued, counted: try later). */
int zl_reliable_send(zl_reliable *r, const void *data, size_t len);

/* 1 when a message is due at now_us (never sent, or not resent for
 * resend_us), so a RELIABLE packet is worth sending. */
int zl_reliable_due(const zl_reliable *r, uint64_t now_us, uint32_t resend_us);

/* Writes the due messages, oldest first, that fit in w (up to 32 of them),
 * as carried by the packet with link sequence `sequence` (the one the link
 * gives it: zl_link_next_sequence). Returns the number written (0: nothing
 * due or nothing fits), or w's sticky error. */
int zl_reliable_write(zl_reliable *r, zl_bitwriter *w, uint16_t sequence, uint64_t now_us,
                      uint32_t resend_us);

/* The link reports packets acknowledged: the messages they carried are done. */
void zl_reliable_acked(zl_reliable *r, const zl_link_acks *acks);

/* Reads a block written by zl_reliable_write (hostile bytes fine): keeps
 * the messages inside the window for zl_reliable_receive. ZL_OK, or
 * ZL_ERR_MALFORMED / ZL_ERR_OVERFLOW (counted malformed; messages read
 * before the error are kept). */
int zl_reliable_read(zl_reliable *r, zl_bitreader *br);

/* Hands over the next message in order: copies it into buf (cap bytes) and
 * returns its length; ZL_ERR_AGAIN when the next one has not arrived;
 * ZL_ERR_OVERFLOW when cap is too small (the message stays). */
int zl_reliable_receive(zl_reliable *r, void *buf, size_t cap);

ZL_END_DECLS

#endif
