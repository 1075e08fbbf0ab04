/* zl_predict.h - client-side prediction: runs the player's own commands at
 * once, reconciles with the server's acknowledged state, smooths corrections.
 * Not part of the API (docs/ARCHITECTURE.md): public because the client, which
 * the application allocates, embeds its predictor; zl_client_config.predict
 * and zl_client_stats.predict are its settings and stats, and an application
 * calls none of it. */
#ifndef ZL_PREDICT_H
#define ZL_PREDICT_H

#include "zl_game.h"

ZL_BEGIN_DECLS

/* The model (Bernier 2001, Half-Life and Source): each command runs once on
 * the predicted state as it is sampled (first_prediction 1: its sounds and
 * effects fire here, once) and is kept with the state it produced. A
 * snapshot acknowledges command S with the server's player state; it is
 * compared, wire field by wire field, with the state kept for S. When they
 * differ the server state becomes the new start, the commands after S are
 * run again silently (first_prediction 0, no event sink), and the drawn
 * position keeps an offset that fades so the view does not jump.
 *
 * Sequence numbers are uint32 and compared with wraparound (a is newer than
 * b when a - b, modulo 2^32, lies in 1 .. 2^31 - 1). */

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_PREDICT_COMMANDS) && ZL_PREDICT_COMMANDS >= 2,
                 zl_predict_commands_pow2);

/* How corrections are shown. Fill with zl_predict_settings_default, then set
 * the field indices (and origin_axes) for the game's player schema. */
typedef struct zl_predict_settings {
    /* Microseconds over which a correction's offset fades linearly to zero
     * (Source's cl_smoothtime). 0: no smoothing, corrections show at once. */
    uint32_t smooth_us;
    /* A correction longer than this (Q16.16 units) snaps instead of sliding
     * (a teleport, a respawn). Must be >= 0. */
    zl_fx snap_distance;
    /* Index in the player schema of x of the origin: origin_axes (2 or 3)
     * consecutive FX fields x, y[, z], the position drawn with the offset
     * (a 2D offset's z is 0). -1: no smoothing. */
    int origin_field;
    int origin_axes;
    /* Index of a field whose change between the old and the corrected
     * prediction means "snap" (a respawn counter). -1: none. */
    int teleport_field;
    /* The player schema prepared (zl_schema_plan_init), or NULL: a wrong
     * ack is then taken by walking the field table. Same results either
     * way. Must outlive the predictor. */
    const zl_schema_plan *plan;
} zl_predict_settings;

/* smooth_us 100000 (100 ms), snap_distance 64 units, origin_field and
 * teleport_field -1, origin_axes 3, no plan. */
void zl_predict_settings_default(zl_predict_settings *s);

/* What prediction did since init; every count only grows. */
typedef struct zl_predict_stats {
    uint32_t predicted;    /* commands run at once by zl_predict_command */
    uint32_t refused_full; /* commands refused: the ring held only unacked ones */
    uint32_t reconciled;   /* acks accepted and compared */
    uint32_t mispredicted; /* of those, acks whose state differed */
    uint32_t replayed;     /* commands run again after a misprediction */
    uint32_t ignored;      /* acks not newer than the last accepted one */
    uint32_t resyncs;      /* acks beyond the newest command: state adopted */
    uint32_t snaps;        /* corrections shown at once instead of smoothed */
} zl_predict_stats;

/* Private: one predicted command and the player state after it. */
typedef struct zl_predict_entry {
    zl_usercmd cmd;
    uint8_t state[ZL_STATE_MAX];
} zl_predict_entry;

/* The predictor; caller-owned (static is fine), fields private. About
 * ZL_PREDICT_COMMANDS * (ZL_STATE_MAX + 28) bytes. The entry of sequence q
 * sits in slot q & (ZL_PREDICT_COMMANDS - 1). The entry of `newest` always
 * holds the current predicted state; entries acked + 1 .. newest are the
 * unacknowledged commands, never overwritten. */
typedef struct zl_predict {
    const zl_game *game;
    zl_predict_settings settings;
    uint32_t newest; /* sequence of the newest command (or of the reset) */
    uint32_t acked;  /* sequence of the last accepted acknowledgement */
    zl_vec3 offset;  /* drawn minus predicted origin when it was set */
    uint64_t offset_us; /* when offset was set; it fades from there */
    zl_predict_stats stats;
    zl_predict_entry ring[ZL_PREDICT_COMMANDS];
} zl_predict;

/* Starts predicting from `state`, the player state the server gave (at
 * connect), as the result of command 0: the first command must be
 * sequence 1. game (its player_schema, run_command and ctx) must outlive p
 * and its player_schema must be at most ZL_STATE_MAX bytes; settings are
 * copied. NULL pointers, a schema too large, or field indices that do not
 * name the fields described in zl_predict_settings are API misuse
 * (ZL_ASSERT). Counters start at zero. */
void zl_predict_init(zl_predict *p, const zl_game *game, const zl_predict_settings *s,
                     const void *state);

/* Forgets every command and adopts `state` as the result of command
 * `sequence`; the next command must be sequence + 1. The offset is cleared;
 * counters are kept. For a (re)connect where the server names the command
 * its state follows. */
void zl_predict_reset(zl_predict *p, uint32_t sequence, const void *state);

/* Runs cmd at once on the predicted state with first_prediction 1, its
 * events going to `events` (may be NULL), and keeps cmd and the result.
 * cmd->sequence must be zl_predict_newest(p) + 1 and cmd must pass
 * zl_usercmd_validate, else ZL_ERR_INVALID and nothing runs (not an
 * assert: after a resync the numbering moves, see zl_predict_reconcile).
 * ZL_ERR_FULL when ZL_PREDICT_COMMANDS commands are unacknowledged:
 * nothing runs, the refusal is counted, and the caller must not send the
 * command either (the server has stopped answering). Else ZL_OK. */
int zl_predict_command(zl_predict *p, const zl_usercmd *cmd, zl_events *events);

/* Applies a snapshot's verdict: the server ran every command up to
 * acked_sequence and server_state (a player state of the game's schema,
 * only its wire fields are read; it may point into p) is the result. now_us (any monotonic
 * microsecond clock, the one given to zl_predict_draw) starts the smoothing.
 *   - acked_sequence not newer than the last accepted ack (old, duplicate,
 *     reordered snapshot): nothing changes, counted in ignored,
 *     ZL_ERR_DUPLICATE.
 *   - newer than the newest command (forged, or the server kept commands
 *     from before a reset): a clean resync, as zl_predict_reset with the
 *     server state, counted in resyncs; returns 0. The next command must
 *     then be zl_predict_newest(p) + 1.
 *   - otherwise S = acked_sequence is one of the unacknowledged commands,
 *     always still kept (the ring never overwrites them). Its client-only
 *     (ZL_LOCAL) fields are carried from the kept prediction into the
 *     server state, which replaces the kept state for S. If a wire field
 *     differed (a misprediction, counted) the commands S + 1 .. newest run
 *     again with first_prediction 0 and no event sink, so no effect fires
 *     twice and effects that appear only in a replay are never shown; their
 *     kept states are refreshed, and the offset becomes the old drawn
 *     origin minus the new predicted one (remaining offset included),
 *     unless it is longer than snap_distance or the teleport field changed:
 *     then it is cleared (a snap, counted).
 * Returns the number of commands run again (0 when the prediction was
 * right). */
int zl_predict_reconcile(zl_predict *p, uint32_t acked_sequence, const void *server_state,
                         uint64_t now_us);

/* The exact predicted state after the newest command (the simulation's
 * truth; schema-sized). Valid until the next call that changes p. */
const void *zl_predict_state(const zl_predict *p);

/* The state kept after command `sequence`, for any sequence from the last
 * accepted ack to the newest still held (the ack's own entry is gone once
 * ZL_PREDICT_COMMANDS commands follow it); NULL otherwise. After a replay
 * every one equals a prediction from scratch from the corrected state.
 * Valid until the next call that changes p. */
const void *zl_predict_state_after(const zl_predict *p, uint32_t sequence);

/* The correction offset still shown at now_us, in units: it fades linearly
 * from its value when set to zero at set time + smooth_us (integer math,
 * truncated toward zero). Zero without smoothing. A now_us before the set
 * time counts as the set time. */
zl_vec3 zl_predict_offset(const zl_predict *p, uint64_t now_us);

/* Writes the state to draw at now_us into out (schema-sized, caller-owned,
 * may not alias p): the predicted state with zl_predict_offset added to the
 * origin (saturating). Without an origin field it is the predicted state. */
void zl_predict_draw(const zl_predict *p, uint64_t now_us, void *out);

/* Sequence of the newest command predicted (the next must be this + 1). */
uint32_t zl_predict_newest(const zl_predict *p);
/* Sequence of the last accepted acknowledgement. */
uint32_t zl_predict_acked(const zl_predict *p);
/* Commands predicted but not yet acknowledged, 0..ZL_PREDICT_COMMANDS:
 * the ones to send (again) to the server. */
uint32_t zl_predict_unacked(const zl_predict *p);
/* The kept command of `sequence` when unacknowledged, else NULL: the
 * client resends these. Valid until the next call that changes p. */
const zl_usercmd *zl_predict_command_at(const zl_predict *p, uint32_t sequence);
/* The counters; the pointer stays valid as long as p. */
const zl_predict_stats *zl_predict_get_stats(const zl_predict *p);

ZL_END_DECLS

#endif
