/* zl_lagcomp.h - server-side lag compensation: a history of every player's
 * state per tick, and shots traced against the players as the shooter drew them.
 * Not part of the API (docs/ARCHITECTURE.md): public because the server, which
 * the application allocates, embeds its history; zl_server_config.lagcomp and
 * zl_server_shot.hit are its settings and result (with zl_lagcomp_time), and
 * an application calls none of it. */
#ifndef ZL_LAGCOMP_H
#define ZL_LAGCOMP_H

#include "zl_game.h"

ZL_BEGIN_DECLS

/* The model (Bernier 2001, Source's lag compensation, Overwatch's
 * broadphase). After each tick the server records every player's state
 * (zl_lagcomp_record). A command that fires reports the pair of server
 * ticks and the fraction its client drew the other players at
 * (zl_usercmd.render_*); zl_lagcomp_target turns that into a target time,
 * and zl_lagcomp_trace poses the players at that time and traces the shot.
 * Because recorded states are quantised exactly as the client received
 * them and posing uses the same zl_schema_interpolate, a trusted target
 * rebuilds the client's boxes bit for bit: a shot that met a box the
 * client drew meets the same box here.
 *
 * Times are microseconds on the server's tick timeline: tick n is at
 * n * tick_us. Ticks must stay below 2^31. The present is the newest
 * recorded tick: record after each tick, before the next tick's commands. */

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_LAGCOMP_TICKS) && ZL_LAGCOMP_TICKS >= 2, zl_lagcomp_ticks_pow2);
ZL_STATIC_ASSERT(ZL_MAX_CLIENTS >= 1 && ZL_MAX_CLIENTS <= 32767, zl_lagcomp_clients);

/* Server settings (Source: sv_maxunlag, the tick_count trust window, the
 * teleport distance). Fill with zl_lagcomp_settings_default, then set
 * origin_field and origin_axes for the game's player schema (zl_server
 * takes both from its zl_game). */
typedef struct zl_lagcomp_settings {
    /* Farthest rewind, microseconds (1000000). The history also caps it at
     * ZL_LAGCOMP_TICKS - 1 ticks. */
    uint32_t maxunlag_us;
    /* A command's claimed render time is trusted when it lies within this
     * many microseconds of the server's own estimate (200000). */
    uint32_t trust_window_us;
    /* Raw Q16.16 distance (64 units): a player whose origin moved more than
     * this between the two samples of a target is not rewound (it is traced
     * in the present). 0 or less disables the test. */
    zl_fx teleport_distance;
    /* Index in the player schema of x of the origin: origin_axes (2 or 3)
     * consecutive FX fields x, y[, z] (0, 3). A 2D origin moves in the
     * plane z = 0. -1: the schema has none; then no teleport test, and a
     * target between two samples poses every player (no broadphase). */
    int origin_field;
    int origin_axes;
} zl_lagcomp_settings;

/* maxunlag 1 s, trust window 200 ms, teleport 64 units, origin field 0
 * with 3 axes. */
void zl_lagcomp_settings_default(zl_lagcomp_settings *s);

/* zl_lagcomp_time.flags */
#define ZL_LAGCOMP_TRUSTED 0x01  /* the command's claim was used */
#define ZL_LAGCOMP_FALLBACK 0x02 /* the claim was outside the trust window:
                                    the server's estimate was used */
#define ZL_LAGCOMP_CLAMPED 0x04  /* the time was older than the history
                                    allows and moved up to its oldest */
#define ZL_LAGCOMP_REFUSED 0x08  /* the claim was in the future: the present */
#define ZL_LAGCOMP_PRESENT 0x10  /* no rewind: the present (compensation off) */

/* A target time: players are posed at zl_schema_interpolate(state at
 * tick_a, state at tick_b, t). Valid while tick_a is still in the history:
 * use it in the tick it was made. */
typedef struct zl_lagcomp_time {
    uint64_t claimed_us; /* the time the command claimed or the caller asked */
    uint64_t time_us;    /* the time posed, after the fallback and clamping */
    uint32_t tick_a, tick_b; /* the sample pair; tick_b == tick_a when t == 0 */
    zl_fx t;             /* Q16.16 fraction from a to b: 0 <= t < ONE, or at
                            least ONE for a client's extrapolation past b */
    uint8_t flags;       /* ZL_LAGCOMP_* */
} zl_lagcomp_time;

/* What one trace met, for a demo or a log (Source's sv_showimpacts: the
 * client's box, the rewound box, the present box). */
typedef struct zl_lagcomp_hit {
    int32_t shooter;      /* as passed to the trace */
    int32_t target;       /* player slot hit, or -1 (the world, or nothing) */
    zl_lagcomp_time when; /* the time traced at (claimed time included) */
    zl_box rewound;       /* the target's hitboxes as traced, their union;
                             all zero without a target */
    zl_box current;       /* its hitboxes in the present, their union */
} zl_lagcomp_hit;

/* What lag compensation did since init; every count only grows. */
typedef struct zl_lagcomp_stats {
    uint32_t recorded;    /* ticks recorded */
    uint32_t targets;     /* commands given a target by zl_lagcomp_target */
    uint32_t untrusted;   /* of those, claims outside the trust window */
    uint32_t clamped;     /* of those, times clamped to the history */
    uint32_t refused;     /* claims in the future (not counted in targets) */
    uint32_t shots;       /* traces */
    uint32_t posed;       /* players posed for a trace (interpolated, or
                             taken as recorded) */
    uint32_t skipped;     /* players the broadphase proved out of the way */
    uint32_t not_rewound; /* players left in the present by a trace: they
                             moved more than teleport_distance between the
                             samples (counted before the broadphase) */
} zl_lagcomp_stats;

/* Private: a recorded state, aligned for the game's own struct type. */
typedef union zl_lagcomp_state {
    uint8_t bytes[ZL_STATE_MAX];
    uint64_t align_;
} zl_lagcomp_state;

/* Private: every player after one server tick. */
typedef struct zl_lagcomp_frame {
    uint32_t tick;
    uint16_t count;   /* player slots recorded */
    uint8_t recorded; /* 0: never written */
    uint8_t present[(ZL_MAX_CLIENTS + 7) / 8]; /* bit per slot: in the game */
    zl_box bound[ZL_MAX_CLIENTS]; /* union of its hitboxes, within
                                     ZL_RAY_LIMIT; all zero: none (dead) */
    /* Filled when the tick before was recorded just before this one: each
     * player's bound at that tick swept along its move to this one, a box
     * that holds every pose between the two (the broadphase's usual case,
     * precomputed once per tick instead of once per shot). */
    uint8_t swept;
    uint8_t jumped[(ZL_MAX_CLIENTS + 7) / 8]; /* bit per slot: moved more
                                                 than teleport_distance */
    zl_box reach[ZL_MAX_CLIENTS];
    zl_lagcomp_state state[ZL_MAX_CLIENTS];
} zl_lagcomp_frame;

/* The history; caller-owned (static is fine), fields private except stats.
 * About ZL_LAGCOMP_TICKS * ZL_MAX_CLIENTS * (ZL_STATE_MAX + 48) bytes:
 * 910 KiB with the defaults. Not for concurrent use: traces share scratch
 * space inside it. */
typedef struct zl_lagcomp {
    zl_game game; /* a copy; its ctx and schemas must outlive lc */
    zl_lagcomp_settings settings;
    uint32_t tick_us;   /* one server tick, microseconds */
    uint32_t first;     /* first tick recorded */
    uint32_t latest;    /* newest tick recorded: the present */
    uint8_t any;        /* 1 once a tick is recorded */
    uint16_t origin_offset[3]; /* byte offsets of x, y[, z] (origin_field >= 0) */
    zl_lagcomp_stats stats;
    zl_lagcomp_state scratch;  /* one posed player */
    zl_hitbox boxes[ZL_MAX_CLIENTS * ZL_LAGCOMP_HITBOXES]; /* one trace's boxes */
    zl_lagcomp_frame frame[ZL_LAGCOMP_TICKS];
} zl_lagcomp;

/* Starts an empty history. game (copied; its ctx and schemas must outlive
 * lc) supplies the player schema (at most ZL_STATE_MAX bytes), hitboxes and
 * trace. tick_us: the server tick in microseconds (> 0). s is copied (NULL:
 * defaults). A NULL pointer, a zero tick or an origin_field that does not
 * name origin_axes FX fields is API misuse (ZL_ASSERT). */
void zl_lagcomp_init(zl_lagcomp *lc, const zl_game *game, uint32_t tick_us,
                     const zl_lagcomp_settings *s);

/* Records the state of every player after server tick `tick`: players is
 * count states of the player schema (0 <= count <= ZL_MAX_CLIENTS), as
 * quantised as the snapshot that carries them; present[i] non-zero marks
 * slot i in the game (NULL: all are). Copies everything, each state as
 * every other client receives it (zl_schema_quantize_shared: the coarser
 * grid of fields that have one), since shots are traced against what the
 * shooter drew; the oldest tick makes room. Ticks must increase (asserted)
 * and should not skip: a tick never recorded has nobody in it. */
void zl_lagcomp_record(zl_lagcomp *lc, uint32_t tick, const void *players, const uint8_t *present,
                       int count);

/* Takes player `slot` out of every recorded tick, as if it had never been
 * in the game: a player who leaves is at once out of every trace and
 * state_at, and whoever takes the slot next is traced only from its own
 * first record, never at its predecessor's past poses. A slot out of
 * range is API misuse (ZL_ASSERT). */
void zl_lagcomp_remove(zl_lagcomp *lc, int slot);

/* The target time of a command that fires a lag-compensated weapon.
 * claimed = the time of cmd's render_tick + render_span * render_frac
 * (render_span ignored when render_frac is 0). estimate = present -
 * latency_us - interp_us, the server's own estimate of the client's view
 * time (Source compares tick_count so): interp_us is the client's
 * interpolation delay in use, latency_us how much older than that the
 * drawing is when the command runs. A client that draws behind its
 * snapshot clock (zl_clock.h) drew a round trip behind the present, plus
 * the time the command waited in the input buffer: zl_server passes that.
 * Both in microseconds.
 *  - A claim within trust_window_us of the estimate is trusted: the
 *    command's own pair and fraction are used, so the client's drawing is
 *    rebuilt exactly. Otherwise the estimate is used (counted in untrusted).
 *  - Either is clamped to the oldest time the history allows: present -
 *    maxunlag_us, and no earlier than the oldest recorded tick (counted).
 *  - A claim whose later sample is after the present cannot be what the
 *    client drew: ZL_ERR_INVALID, counted in refused, and *out is set to
 *    the present so the shot can still be resolved without compensation.
 * Returns ZL_OK; ZL_ERR_INVALID also before the first record (then *out is
 * zeroed with the PRESENT flag). Hostile commands are data, never asserts. */
int zl_lagcomp_target(zl_lagcomp *lc, const zl_usercmd *cmd, uint32_t latency_us,
                      uint32_t interp_us, zl_lagcomp_time *out);

/* A target at an explicit server time, for game code (a melee swing, a
 * delayed check): time_us is clamped to the history as above (flag
 * CLAMPED; not counted). ZL_ERR_INVALID for a time after the present or
 * before the first record (then *out holds the present). */
int zl_lagcomp_time_at(const zl_lagcomp *lc, uint64_t time_us, zl_lagcomp_time *out);

/* The present as a target: every player as last recorded. */
void zl_lagcomp_present(const zl_lagcomp *lc, zl_lagcomp_time *out);

/* zl_lagcomp_state_at results. */
enum {
    ZL_LAGCOMP_ABSENT = 0,  /* not in the game at both samples and now */
    ZL_LAGCOMP_REWOUND = 1, /* posed at the target time */
    ZL_LAGCOMP_CURRENT = 2  /* teleported between the samples: the present */
};

/* Writes player `slot` as traces see it at `when` (NULL: the present) into
 * out (a state of the player schema). Returns ZL_LAGCOMP_REWOUND or
 * ZL_LAGCOMP_CURRENT with out written, or ZL_LAGCOMP_ABSENT (out untouched)
 * for a slot out of range, absent at either sample or now, or a tick that
 * has left the history. */
int zl_lagcomp_state_at(const zl_lagcomp *lc, const zl_lagcomp_time *when, int slot, void *out);

/* Traces the segment start -> end at `when` (NULL: the present) against
 * the world and every player's hitboxes but the shooter's (shooter: a slot,
 * or -1 for none), through zl_game.trace: same results and return values
 * (1 hit, 0 nothing, ZL_ERR_INVALID out of ZL_RAY_LIMIT). A player is posed
 * only when the segment meets the union of its boxes over the pair
 * (broadphase): its box at tick_a swept by the origin's move to tick_b.
 * That is exact when a player's hitboxes are a shape chosen by its step
 * fields moved with its origin (the FPS's are); a game whose boxes turn
 * with interpolated angles uses zl_lagcomp_trace_all. A player dead at
 * tick_a has no boxes; a teleported one is traced in the present. Live
 * states are never touched (the history keeps its own copies), so nothing
 * needs restoring. hit (NULL: not wanted) gets the shot's record. */
int zl_lagcomp_trace(zl_lagcomp *lc, const zl_lagcomp_time *when, const zl_vec3 *start,
                     const zl_vec3 *end, int32_t shooter, zl_trace *out, zl_lagcomp_hit *hit);

/* zl_lagcomp_trace without the broadphase: poses every player in the game.
 * Same results always; for comparison and as a test oracle. */
int zl_lagcomp_trace_all(zl_lagcomp *lc, const zl_lagcomp_time *when, const zl_vec3 *start,
                         const zl_vec3 *end, int32_t shooter, zl_trace *out, zl_lagcomp_hit *hit);

/* The context of a zl_shot_tracer made by zl_lagcomp_tracer: one command's
 * shots. Caller-owned; read hits and last after resolve_event. */
typedef struct zl_lagcomp_shot {
    zl_lagcomp *lc;
    zl_lagcomp_time when; /* the time shots are traced at */
    uint32_t hits;        /* traces through the tracer that hit a player */
    zl_lagcomp_hit last;  /* the last trace's record */
} zl_lagcomp_shot;

/* A tracer for zl_game.resolve_event that traces with zl_lagcomp_trace at
 * *when (copied), or in the present when `when` is NULL (compensation off).
 * shot is filled and becomes the tracer's ctx: it must outlive the tracer's
 * use. */
zl_shot_tracer zl_lagcomp_tracer(zl_lagcomp_shot *shot, zl_lagcomp *lc,
                                 const zl_lagcomp_time *when);

ZL_END_DECLS

#endif
