/* zl_replay.h - re-runs a match record (zl_record.h) through the game's
 * rules, with no network, to the match hash the live server computed. */
#ifndef ZL_REPLAY_H
#define ZL_REPLAY_H

#include "zl_record.h"

ZL_BEGIN_DECLS

/* The application reloads its game (world, entities, scores) as match
 * match_id, as it did before zl_server_change_match. */
typedef void (*zl_replay_reload)(void *ctx, uint32_t match_id);

/* A replay. Caller-owned and large (a lag compensation history: place it
 * in static storage); fields private but the counters and hashes. */
typedef struct zl_replay {
    zl_game game;
    zl_replay_reload reload;
    void *reload_ctx;
    zl_record_reader rd;
    uint32_t tick_us, msec;  /* the server's tick, and its entity step */
    uint32_t tick;           /* the last tick run */
    uint32_t idle;           /* ticks without commands still to run */
    uint32_t ticks;          /* ticks run */
    uint32_t commands, joins, leaves, matches;
    uint32_t player_ticks;   /* players in the game, summed over the ticks */
    uint32_t hash;           /* zl_record_hash after the last tick run */
    uint32_t recorded_hash;  /* the record's, once its end is read */
    uint8_t ended;
    uint8_t present[ZL_MAX_CLIENTS];
    zl_events events;
    zl_event event_store[ZL_SERVER_EVENTS];
    uint32_t players[ZL_MAX_CLIENTS * ZL_STATE_MAX / 4];
    uint32_t scratch[ZL_STATE_MAX / 4];
    zl_lagcomp lagcomp;
} zl_replay;

/* Starts replaying the len bytes at record (kept by the caller) with
 * `game`, in the state the live server's game was in when the record
 * began (fresh, or as the header's configuration says: the caller reads
 * r->rd.header.config first). reload (NULL: a record holding a new match
 * is refused) is called at every new match. Returns ZL_OK, a
 * zl_record_reader_init error, ZL_ERR_UNSUPPORTED when the record needs
 * more history or events than this build keeps (ZL_LAGCOMP_TICKS,
 * ZL_SERVER_EVENTS), or ZL_ERR_INVALID when the record is of another game
 * (state size, entities, origin). */
int zl_replay_init(zl_replay *r, const zl_game *game, const void *record, size_t len,
                   zl_replay_reload reload, void *reload_ctx);

/* Runs the record's next tick: 1 (a tick ran), 0 (the record's end:
 * r->hash and r->recorded_hash are set), or a zl_record_next error (the
 * record is refused from there on), or ZL_ERR_UNSUPPORTED for a new match
 * without a reload. A few bytes can ask for up to 2^31 ticks: replay a
 * record from an untrusted source a step at a time, within a tick budget. */
int zl_replay_step(zl_replay *r);

/* Runs the whole record: ZL_OK when the replay reached the record's hash,
 * ZL_ERR_DESYNC when it reached another, or zl_replay_step's error. */
int zl_replay_run(zl_replay *r);

/* The live state of player `slot` at r->tick, or NULL when the slot is
 * not in the game. */
const void *zl_replay_player(const zl_replay *r, int slot);

ZL_END_DECLS

#endif
