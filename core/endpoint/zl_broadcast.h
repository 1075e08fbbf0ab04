/* zl_broadcast.h - the spectator stream (SourceTV's model): the whole world
 * as a spectator sees it, cut into fragments once, whatever the number of watchers. */
#ifndef ZL_BROADCAST_H
#define ZL_BROADCAST_H

#include "zl_demo.h"
#include "zl_server.h"
#include "zl_tvindex.h"

ZL_BEGIN_DECLS

/* A fragment holds a keyframe and at least one delta. */
ZL_STATIC_ASSERT(ZL_BROADCAST_HELD >= 2 &&
                     ZL_BROADCAST_BYTES >= ZL_DEMO_HEADER_SIZE +
                                               2 * (ZL_DEMO_ITEM_HEADER_SIZE + ZL_MAX_PACKET),
                 zl_broadcast_sizes);

/* How the stream is cut. Fill with zl_broadcast_config_default. */
typedef struct zl_broadcast_config {
    uint32_t fragment_ms;   /* a keyframe and the deltas of this long (3000) */
    uint32_t delay_ms;      /* tv_delay: spectators see the match this late
                               (10000); the server publishes a fragment only
                               once its newest tick is delay - fragment - 1 s
                               old, so nobody reads the match sooner */
    uint16_t snapshot_rate; /* snapshots per second in the stream; 0: one
                               every tick (0) */
} zl_broadcast_config;

void zl_broadcast_config_default(zl_broadcast_config *c);

/* One published fragment, in the demo format (zl_demo.h): its KEYFRAME
 * item a full SNAPSHOT payload of first_tick's world (for no player:
 * ZL_SNAPSHOT_NONE, no events), then one SNAPSHOT item per snapshot up to
 * last_tick, each a delta against the item before it. Item times are the
 * ticks' times since the broadcast's first tick. */
typedef struct zl_broadcast_fragment {
    uint32_t number;        /* the fragment's sequence: 0, 1, 2 ... */
    uint32_t first_tick, last_tick;
    uint32_t present_tick;  /* the server's tick when it was published */
    const uint8_t *bytes;   /* the fragment */
    size_t len;
} zl_broadcast_fragment;

/* Hands a published fragment over (the bytes are valid during the call
 * only). Called once per fragment: the caller fans it out (files, HTTP). */
typedef void (*zl_broadcast_emit)(void *ctx, const zl_broadcast_fragment *f);

/* What the writer did, in all. */
typedef struct zl_broadcast_stats {
    uint32_t fragments;      /* published */
    uint32_t early;          /* published before the delay passed: the ring
                                of ZL_BROADCAST_HELD was full (fragments
                                closed early by ZL_BROADCAST_BYTES) */
    uint32_t snapshots;      /* records written */
    uint32_t overflows;      /* snapshots that did not fit a packet: skipped */
    uint64_t bytes;          /* of the published fragments */
    uint64_t key_bytes;      /* of which their keyframe items */
} zl_broadcast_stats;

/* Private: one fragment held back. */
typedef struct zl_broadcast_slot {
    uint8_t used;
    uint32_t number, first_tick, last_tick, key_len;
    size_t len;
    uint8_t bytes[ZL_BROADCAST_BYTES];
} zl_broadcast_slot;

/* A broadcast writer. Caller-owned and large (ZL_BROADCAST_HELD + 1 times
 * ZL_BROADCAST_BYTES, plus two snapshot clients): static storage. Fields
 * private except stats. */
typedef struct zl_broadcast {
    zl_broadcast_config config;
    zl_broadcast_emit emit;
    void *ctx;
    uint32_t every;          /* ticks between snapshots */
    uint32_t fragment_ticks, hold_ticks, delay_ticks;
    uint8_t started;
    uint32_t next_tick;      /* the next snapshot's tick */
    uint32_t first_tick;     /* the broadcast's (stream time 0) */
    uint32_t number;         /* the fragment being written */
    uint32_t frag_first, frag_last, frag_key; /* its ticks, keyframe bytes */
    uint32_t oldest;         /* the oldest fragment not yet published */
    uint16_t sequence;       /* the chain's records, acknowledged at once */
    zl_demo_writer writer;
    uint8_t stage[ZL_BROADCAST_BYTES]; /* the fragment being written */
    zl_snapshot_client chain; /* the deltas: each against the record before */
    zl_snapshot_client key;   /* the keyframes: reset before each */
    zl_broadcast_slot slot[ZL_BROADCAST_HELD];
    zl_broadcast_stats stats;
} zl_broadcast;

/* Starts a writer for the server s (initialised; its tick rate is read).
 * emit(ctx, ...) receives each fragment once it may be published.
 * Returns ZL_OK, or ZL_ERR_INVALID when the settings do not fit: a
 * fragment shorter than two snapshots or than 100 ms, a snapshot_rate above the
 * tick rate, or more fragments held back for the delay than
 * ZL_BROADCAST_HELD - 1. */
int zl_broadcast_init(zl_broadcast *b, const zl_broadcast_config *c, const zl_server *s,
                      zl_broadcast_emit emit, void *ctx);

/* Feeds the server's newest tick (call after every zl_server_update that
 * ran ticks; ticks skipped in between are simply not in the stream): when
 * a snapshot is due, writes it once, for every spectator (no lag
 * compensation, every entity, no commands, no events), closes the
 * fragment when it is long enough and publishes those held long enough.
 * Returns the fragments published by this call. */
int zl_broadcast_update(zl_broadcast *b, zl_server *s);

/* Publishes every fragment held (the match is over: nothing is left to
 * hide), including the one being written. Returns how many. */
int zl_broadcast_flush(zl_broadcast *b, zl_server *s);

ZL_END_DECLS

#endif
