/* zl_client_demo.h - client demos: records what a client receives and runs
 * into fragments (zl_demo.h), and plays them back through the same client. */
#ifndef ZL_CLIENT_DEMO_H
#define ZL_CLIENT_DEMO_H

#include "zl_client.h"
#include "zl_demo.h"

ZL_BEGIN_DECLS

/* The model (Quake 3's demos): a recording client writes every SNAPSHOT
 * payload it opens, with its arrival time, every frame it draws and every
 * command it runs. Playback feeds them to a client in the same order at the
 * same times, through the same code (the snapshot decoder, prediction,
 * the clock, interpolation), so each frame draws the same, bit for bit.
 * Every keyframe_us a new fragment starts with a keyframe: the client's
 * state as playback needs it (docs/DEMOS.md): its slot, tick rate,
 * settings, render clock, the snapshot frames it keeps (which later deltas
 * use as bases, and which refill interpolation), and its predicted
 * player's acknowledged state with the commands not yet acknowledged.
 * Starting playback at any keyframe therefore draws the same frames from
 * there on as the live client did.
 * Not recorded: handshake, reliable messages, blocks, events' playback
 * state at a keyframe (events queued then are not in it), a new match on
 * the connection and zl_client_set_settings (each changes what follows:
 * record one match with fixed settings). */

/* Where finished fragments go: len bytes at fragment (valid during the
 * call). A file, a socket, a broadcast's store. */
typedef void (*zl_demo_sink)(void *ctx, const uint8_t *fragment, uint32_t len);

/* A recording. Caller-owned (static storage); fields private but the
 * counters. */
typedef struct zl_client_recorder {
    zl_demo_writer writer;
    zl_demo_sink sink;
    void *ctx;
    uint32_t keyframe_us;  /* time between keyframes */
    uint64_t origin_us;    /* the client's time at stream time 0 */
    uint64_t next_key_us;  /* stream time of the next keyframe */
    uint8_t started;       /* the first item was written */
    uint8_t failed;        /* a keyframe did not fit: recording stopped */
    uint32_t fragments;    /* handed to the sink */
    uint64_t bytes;        /* of those */
    uint32_t frames;       /* frames recorded */
    uint32_t frame_hash;   /* their zl_client_frame_hash, folded in order by
                              zl_demo_hash_fold from ZL_SCHEMA_HASH_INIT: a
                              playback from the start folds the same */
} zl_client_recorder;

/* Folds one frame's hash into the hash of the frames before it. */
static inline uint32_t zl_demo_hash_fold(uint32_t hash, uint32_t frame)
{
    return (hash ^ frame) * 16777619u;
}

/* Starts recording c into r: fragments build in buf (cap bytes, caller-
 * owned, kept while recording; it must hold a keyframe, the client's kept
 * frames in full: about ZL_SNAPSHOT_FRAMES x the entities x their state
 * size) and go to sink whole, one every keyframe_us (1 .. 2^31) of the
 * client's time or sooner when buf fills. The stream starts at the next
 * item while c is connected (its time is stream time 0). */
void zl_client_record_start(zl_client *c, zl_client_recorder *r, void *buf, uint32_t cap,
                            uint32_t keyframe_us, zl_demo_sink sink, void *ctx);

/* Stops recording: the open fragment goes to the sink. ZL_OK, or
 * ZL_ERR_OVERFLOW when a keyframe did not fit buf (the stream ended at the
 * fragment before; r->failed). */
int zl_client_record_stop(zl_client *c);

/* Starts playback of the fragment f (opened by zl_demo_fragment_open) on
 * c (initialised with the recording client's game and configuration): c
 * becomes what the recording client was at f's keyframe, in state
 * ZL_CLIENT_PLAYING (nothing is sent), and any earlier session or match
 * is gone (a connected client says goodbye first). ZL_OK, or ZL_ERR_MALFORMED / ZL_ERR_OVERFLOW for a keyframe
 * that is not a client's (c is then idle). Then feed f's items and those
 * of the fragments after it to zl_client_play_item. */
int zl_client_play_start(zl_client *c, const zl_demo_fragment *f);

/* Plays one item at its time (the recording client's): a SNAPSHOT as
 * received, a FRAME as zl_client_frame, a COMMAND as zl_client_command
 * (its events go to `events`, may be NULL). Keyframes and application
 * items change nothing (playback that goes on from one fragment to the
 * next continues). Returns the item's kind, or ZL_ERR_MALFORMED for a
 * command that does not decode, ZL_ERR_INVALID when c is not PLAYING. */
int zl_client_play_item(zl_client *c, const zl_demo_item_view *item, zl_events *events);

/* The client's time an item of stream time time_us plays at. */
uint64_t zl_client_play_time(const zl_client *c, uint64_t time_us);

/* A hash of what the last zl_client_frame drew: every entity drawn (its
 * number and state) and the predicted player (exact, no smoothing), at
 * most ZL_MAX_ENTITIES states hashed. Equal for a live frame and its
 * playback. */
uint32_t zl_client_frame_hash(const zl_client *c);

/* The client loop's own hooks (zl_client.c), not for applications. */
/* An item to record at the client's time now_us. */
void zl_client_record_(zl_client *c, uint8_t kind, const void *data, uint32_t len,
                       uint64_t now_us);
/* A frame was drawn: its hash joins the recording's. */
void zl_client_record_drawn_(zl_client *c);
/* A command to record, at the time of the frame before it. */
void zl_client_record_command_(zl_client *c, const zl_usercmd *cmd);
/* zl_client.c's steps that playback shares. */
void zl_client_start_match_(zl_client *c);
void zl_client_take_frame_(zl_client *c, const zl_snapshot_frame *f, uint32_t executed,
                           uint64_t now_us);
/* ZL_OK when the snapshot was read (or belongs to a match left), else
 * why not: the packet that carried it must then not be acknowledged. */
int zl_client_on_snapshot_(zl_client *c, const uint8_t *payload, size_t len, size_t datagram_len,
                           uint64_t now_us);

ZL_END_DECLS

#endif
