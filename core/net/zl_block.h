/* zl_block.h - blocks: reliable payloads of up to ZL_BLOCK_MAX bytes each way
 * (a gamestate, a map), cut into chunks that ride beside snapshots or commands. */
#ifndef ZL_BLOCK_H
#define ZL_BLOCK_H

#include "zl_conn.h"

ZL_BEGIN_DECLS

ZL_STATIC_ASSERT(ZL_BLOCK_MAX >= 1 && ZL_BLOCK_MAX <= 16777216, zl_block_max);
ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_BLOCK_CHUNK) && ZL_BLOCK_CHUNK >= 16 && ZL_BLOCK_CHUNK <= 1024,
                 zl_block_chunk);
ZL_STATIC_ASSERT(ZL_BLOCK_PACKETS >= 1 && ZL_BLOCK_PACKETS <= 1024, zl_block_packets);

/* Chunks of the largest block, and 32-bit words of one bit per chunk. */
#define ZL_BLOCK_CHUNKS ((ZL_BLOCK_MAX + ZL_BLOCK_CHUNK - 1) / ZL_BLOCK_CHUNK)
#define ZL_BLOCK_WORDS ((ZL_BLOCK_CHUNKS + 31) / 32)
ZL_STATIC_ASSERT(ZL_BLOCK_CHUNKS <= 65535, zl_block_chunks_fit);
/* Runs of consecutive chunks one packet carries at most. */
#define ZL_BLOCK_RUNS 4
/* The largest section: header (bits, docs/PROTOCOL.md) and one chunk must
 * fit a packet, or no block could ever move. */
ZL_STATIC_ASSERT(ZL_PACKET_MAX_PAYLOAD >= 16 + ZL_BLOCK_CHUNK, zl_block_chunk_fits);

/* The model. One block at a time each way (yojimbo's block messages keep
 * one in flight too). The sender cuts it into ZL_BLOCK_CHUNK-byte chunks
 * and, whenever the endpoint has bytes of the peer's rate to spare, writes
 * a section of runs of chunks not yet acknowledged and not in flight:
 * resends first, oldest first, then new ones. It remembers which runs each
 * packet carried; the link's acks (zl_link_acks, in every header both ways)
 * mark them received. A packet not acknowledged within a round trip and
 * four deviations (a quarter of the round trip at least; two deviations
 * once every chunk has been sent once: the end of a transfer waits on
 * nothing else) is taken as lost and only its chunks go again. A loss at
 * the end costs a whole round trip more than one in the middle, which new
 * chunks fill; so once every chunk has gone, the rate the block would
 * leave unused carries a second copy of its last two packets, and of every
 * packet in flight, newest first, when the link has lost 1% or more lately
 * or this block has lost one. The receiver writes each chunk into its caller-owned
 * buffer at the chunk's place, once; a complete block stays there until
 * the application releases it.
 *
 * Refusal before acknowledgement. A receiver that cannot take a block (its
 * buffer is smaller than the block's total, or it still holds a complete
 * block the application has not released) refuses the whole packet before
 * the link records it (zl_blocks_check), so the sender never hears it
 * acknowledged and sends it again later. So that refusing costs nothing
 * else, a sender puts a block's chunks in packets of their own (the BLOCK
 * type with no inner message) until the receiver has acknowledged one of
 * them; from then on they also ride beside the snapshot or the commands in
 * the same datagram. Wire: docs/PROTOCOL.md, section 11.2. */

/* States in zl_block_status. */
enum {
    ZL_BLOCK_IDLE = 0,   /* nothing under way (sending: none yet; receiving:
                            none, or the last one released) */
    ZL_BLOCK_ACTIVE = 1, /* bytes moving */
    ZL_BLOCK_DONE = 2    /* sending: the last block is acknowledged whole
                            (its memory is the caller's again); receiving:
                            a complete block waits for the application */
};

/* Progress of one direction (a loading bar). */
typedef struct zl_block_status {
    uint8_t state;   /* ZL_BLOCK_* */
    uint16_t id;     /* the block's number (the sender's count, from 0) */
    uint32_t done;   /* bytes acknowledged (sending) or received (receiving) */
    uint32_t total;  /* the block's size; 0 while receiving has not begun */
} zl_block_status;

/* Measurements of one connection end; counters only grow. */
typedef struct zl_block_stats {
    uint32_t blocks_sent;     /* blocks acknowledged whole */
    uint32_t blocks_received; /* blocks received whole */
    uint32_t bytes_sent;      /* chunk bytes put into packets, resends included */
    uint32_t bytes_resent;    /* of those, chunks sent before */
    uint32_t header_bytes;    /* section headers written */
    uint32_t alone;           /* packets of their own (no inner message) sent */
    uint32_t beside;          /* sections written beside a snapshot or commands */
    uint32_t expired;         /* packets taken as lost: their chunks go again */
    uint32_t tail_copies;     /* packets sent again unasked at the end of a
                                 block on a lossy link (below) */
    uint32_t bytes_received;  /* new chunk bytes stored */
    uint32_t duplicates;      /* chunks already held, or of a finished block */
    uint32_t refused_busy;    /* packets refused: a new block while a complete
                                 one waits for the application */
    uint32_t refused_large;   /* packets refused: a total above the buffer */
    uint32_t malformed;       /* packets refused: a section that does not
                                 decode, or another inner type than allowed */
    uint32_t abandoned;       /* blocks in progress replaced by a newer one */
} zl_block_stats;

/* Private: a run of chunks. */
typedef struct zl_block_run {
    uint16_t first, count;
} zl_block_run;

/* Private: the runs one sent packet carried. */
typedef struct zl_block_record {
    uint32_t sent_us;  /* low 32 bits of the send time */
    uint16_t sequence; /* the link's */
    uint8_t live;      /* 1 until acknowledged or taken as lost */
    uint8_t copied;    /* its chunks went again at the end (or it is the copy) */
    uint8_t runs;
    zl_block_run run[ZL_BLOCK_RUNS];
} zl_block_record;

/* Private: the sending half. */
typedef struct zl_block_sender {
    const uint8_t *data; /* the caller's block; NULL when none is under way */
    uint32_t total;      /* its bytes (the last one's once done) */
    uint32_t acked_bytes;
    uint16_t id;         /* its number */
    uint16_t chunks, acked_chunks;
    uint16_t fresh;      /* chunks from here on were never sent */
    uint8_t state;       /* ZL_BLOCK_* */
    uint8_t accepted;    /* the receiver acknowledged a chunk of it */
    uint16_t copies;     /* packets copied at its end */
    uint8_t lossy;       /* a packet of it was taken as lost */
    uint32_t acked[ZL_BLOCK_WORDS];  /* bit per chunk */
    uint32_t flying[ZL_BLOCK_WORDS]; /* bit per chunk in a live record */
    zl_block_record record[ZL_BLOCK_PACKETS];
} zl_block_sender;

/* Private: the receiving half. */
typedef struct zl_block_receiver {
    uint8_t *buffer;     /* the caller's */
    uint32_t capacity;
    uint8_t state;       /* ZL_BLOCK_* */
    uint16_t id;         /* the block held or arriving (not IDLE) */
    uint16_t next;       /* the lowest number a new block may have */
    uint32_t total, bytes;
    uint16_t chunks, missing;
    uint32_t have[ZL_BLOCK_WORDS];
} zl_block_receiver;

/* Blocks both ways on one connection end. Caller-owned (inside the
 * endpoint); fields private but stats. */
typedef struct zl_blocks {
    zl_block_sender out;
    zl_block_receiver in;
    zl_block_stats stats;
} zl_blocks;

/* Empties both directions; blocks from the peer will be written into
 * buffer (capacity bytes, caller-owned, kept until the connection ends;
 * NULL and 0: every block is refused). Numbering starts at 0. */
void zl_blocks_init(zl_blocks *b, void *buffer, uint32_t capacity);

/* Starts sending len bytes at data. The bytes are the caller's and must
 * stay unchanged until the sending status says DONE (or the connection
 * ends): nothing is copied. ZL_OK; ZL_ERR_INVALID for len 0 or above
 * ZL_BLOCK_MAX; ZL_ERR_FULL while the previous block is under way. */
int zl_blocks_send(zl_blocks *b, const void *data, uint32_t len);

/* 1 when a block is under way and could write a section. */
int zl_blocks_pending(const zl_blocks *b);

/* The link reports packets acknowledged: their chunks are received.
 * Returns 1 when this completed the block being sent, else 0. */
int zl_blocks_acked(zl_blocks *b, const zl_link_acks *acks);

/* A section beside a message about to be sent on link l: payload (room for
 * ZL_PACKET_MAX_PAYLOAD bytes) holds *bytes of a message of `type`. When a
 * block is under way and its receiver has acknowledged part of it, runs of
 * chunks that fit in `budget` more bytes are put in front of the message,
 * *bytes grows, and ZL_MSG_BLOCK is returned; otherwise `type`, nothing
 * changed. The packet must then go out as the next on l (recorded under
 * zl_link_next_sequence). */
uint8_t zl_blocks_attach(zl_blocks *b, const zl_link *l, uint8_t *payload, int *bytes,
                         uint8_t type, uint32_t budget, uint64_t now_us);

/* A BLOCK packet of its own on c, of at most budget bytes on the wire
 * (header and tag included). Returns its datagram length, 0 when nothing
 * was due or fits, or a negative ZL_ERR_*. */
int zl_blocks_send_alone(zl_blocks *b, zl_conn *c, uint32_t budget, uint64_t now_us);

/* Before the link takes a BLOCK packet (hostile bytes fine): ZL_OK when
 * its section decodes, its inner message is none or `inner` (the type
 * this direction carries) and the block can be taken; else the packet must
 * be dropped unacknowledged: ZL_ERR_MALFORMED, ZL_ERR_FULL (a complete
 * block waits for release) or ZL_ERR_OVERFLOW (larger than the buffer),
 * each counted. */
int zl_blocks_check(zl_blocks *b, const uint8_t *payload, size_t len, uint8_t inner);

/* After the link took a BLOCK packet that passed zl_blocks_check: stores
 * its chunks and points *payload and *len at the inner message, *type its
 * type (ZL_MSG_KEEPALIVE when none: nothing more to read). Returns 1 when
 * this completed a block, else 0. */
int zl_blocks_unwrap(zl_blocks *b, uint8_t *type, const uint8_t **payload, size_t *len);

/* Where the inner message of a BLOCK packet starts, without taking its
 * chunks (a tool, a test peer): the offset in payload with *type as in
 * zl_blocks_unwrap, or ZL_ERR_MALFORMED. */
int zl_blocks_peek(const uint8_t *payload, size_t len, uint8_t *type);

/* The complete block waiting for the application: *data points into the
 * receive buffer, valid until zl_blocks_release. Returns its length, or
 * ZL_ERR_AGAIN when none is complete. */
int zl_blocks_received(const zl_blocks *b, const uint8_t **data);

/* The application is done with the complete block: the next may arrive. */
void zl_blocks_release(zl_blocks *b);

/* Progress both ways (either pointer may be NULL). */
void zl_blocks_progress(const zl_blocks *b, zl_block_status *sending, zl_block_status *receiving);

ZL_END_DECLS

#endif
