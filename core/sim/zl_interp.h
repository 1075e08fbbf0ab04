/* zl_interp.h - entity interpolation: a ring of received samples per entity,
 * drawn in the past between the two samples around the render time.
 * Not part of the API (docs/ARCHITECTURE.md): public because the client, which
 * the application allocates, embeds a history per entity; an application calls
 * none of it. */
#ifndef ZL_INTERP_H
#define ZL_INTERP_H

#include "zl_game.h"

ZL_BEGIN_DECLS

/* Ring length must be a power of two so the slot is push count & (N - 1),
 * and at least 2 so there is a pair to interpolate. */
ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_INTERP_SAMPLES) && ZL_INTERP_SAMPLES >= 2, interp_samples_pow2);

/* Default teleport distance: Source does not rewind or interpolate across a
 * jump of more than 64 units. */
#define ZL_INTERP_TELEPORT_DISTANCE ZL_FX_INT(64)

/* Client-side settings, changeable at run time between frames (Source's
 * cl_interp, cl_interp_ratio, cl_extrapolate_amount). */
typedef struct zl_interp_settings {
    uint32_t interp_us;      /* smallest interpolation delay, microseconds (100000) */
    uint32_t interp_ratio;   /* delay in snapshot intervals at least (2) */
    uint32_t extrapolate_us; /* longest extrapolation past the newest sample,
                                microseconds (250000); 0 never extrapolates */
} zl_interp_settings;

/* Fills s with the defaults above. */
void zl_interp_settings_default(zl_interp_settings *s);

/* The interpolation delay in microseconds: max(interp_us, interp_ratio *
 * 1000000 / updaterate), the ratio term rounded to nearest (halves up), so
 * ratio 2 at 66 snapshots/s gives 30303. updaterate is the server's
 * snapshot rate per second; 0 (unknown) leaves interp_us alone. Results
 * above UINT32_MAX saturate. */
uint32_t zl_interp_delay_us(const zl_interp_settings *s, uint32_t updaterate);

/* How an entity's states are read. Build it with zl_interp_config_init,
 * then set the field indices the game has. */
typedef struct zl_interp_config {
    const zl_schema *schema; /* layout of the states; size <= ZL_STATE_MAX */
    /* The schema prepared (zl_schema_plan_init), or NULL: draws then walk
     * the field table. Same results either way. Must outlive the history. */
    const zl_schema_plan *plan;
    /* Index in schema->fields of x of the origin: origin_axes (2 or 3,
     * default 3) consecutive FX fields x, y[, z] (any memory layout), whose
     * Euclidean displacement between two samples beyond teleport_distance
     * means a teleport; -1 for none. */
    int origin_field;
    int origin_axes;
    /* Index of a field whose value changes only when the server wants no
     * interpolation (a respawn counter); any change is a teleport; -1 for
     * none. */
    int teleport_field;
    /* Raw Q16.16 distance, default ZL_INTERP_TELEPORT_DISTANCE; a move of
     * more than this is a teleport. 0 or less disables the distance test. */
    zl_fx teleport_distance;
} zl_interp_config;

/* Sets schema, no plan, no origin or teleport field (origin_axes 3), the
 * default distance. */
void zl_interp_config_init(zl_interp_config *c, const zl_schema *schema);

/* One received sample. Private: read it through zl_interp_sample. */
typedef struct zl_interp_entry {
    uint64_t time_us; /* server time of the sample */
    uint32_t tick;    /* server tick of the sample */
    uint8_t state[ZL_STATE_MAX];
} zl_interp_entry;

/* Samples of one entity, oldest to newest. Caller-owned and statically
 * sized; all-zero bytes (static storage, memset) is an empty history.
 * Fields are private except the counters, which the caller may read. */
typedef struct zl_interp_history {
    zl_interp_config config; /* copied by each push: the layout of `entry` */
    uint32_t head;           /* pushes since the ring began: the newest sample
                                sits at (head - 1) & (ZL_INTERP_SAMPLES - 1) */
    uint32_t count;          /* samples held, 0..ZL_INTERP_SAMPLES */
    /* Counters, kept across zl_interp_reset. */
    uint32_t pushed;   /* samples accepted */
    uint32_t stale;    /* samples refused: not newer than the newest */
    uint32_t restarts; /* teleports: the history restarted at a sample */
    zl_interp_entry entry[ZL_INTERP_SAMPLES];
} zl_interp_history;

/* Empties the history (the entity left relevance, or its index now names
 * another entity): the next push starts afresh and nothing is ever blended
 * with a sample from before. Counters are kept. */
void zl_interp_reset(zl_interp_history *h);

/* zl_interp_push says the history restarted at the sample. */
#define ZL_INTERP_RESTARTED 1

/* Appends a received sample: `state` (c->schema->size bytes, copied) of
 * server tick `tick` at server time `time_us` (the caller's tick x tick
 * duration). The oldest sample makes room when the ring is full. c is
 * copied into the history; every push between resets must use the same
 * schema (asserted).
 * Returns ZL_OK, or ZL_INTERP_RESTARTED when the sample is a teleport (the
 * teleport field changed, or the origin moved more than teleport_distance
 * from the newest sample): the history then holds this sample only, so the
 * entity snaps instead of sliding. Refused and counted in `stale`, history
 * unchanged: ZL_ERR_DUPLICATE for a tick not newer than the newest (late,
 * repeated or reordered), ZL_ERR_INVALID for a newer tick whose time is not
 * later than the newest's. */
int zl_interp_push(zl_interp_history *h, const zl_interp_config *c, uint32_t tick,
                   uint64_t time_us, const void *state);

/* What zl_interp_sample drew (distinct from the schema's ZL_INTERP_*). */
enum {
    ZL_PICK_EMPTY = 0,        /* no sample: nothing written */
    ZL_PICK_HELD = 1,         /* one sample as is (a) */
    ZL_PICK_BETWEEN = 2,      /* a..b at t in [0, ONE): a straddling pair */
    ZL_PICK_EXTRAPOLATED = 3  /* past the newest b along a->b, t > ONE */
};

/* The record of one draw: the render time and the sample pair it used.
 * HELD has tick_b == tick_a, time_b == time_a and t == 0. */
typedef struct zl_interp_pick {
    uint64_t render_us;      /* the render time asked for */
    uint64_t time_a, time_b; /* server times of the pair */
    uint32_t tick_a, tick_b; /* server ticks of the pair */
    zl_fx t;                 /* Q16.16 fraction from a to b */
    uint8_t mode;            /* ZL_PICK_* */
} zl_interp_pick;

/* Draws the entity at render_us (server microseconds) into out (a state of
 * the history's schema; only its fields are written) and records what was
 * used in *pick (NULL: not recorded). Returns the ZL_PICK_* mode:
 *  - EMPTY: no sample; out untouched.
 *  - BETWEEN: the newest sample a with time <= render_us and the next one b
 *    (found walking back from the newest, so every sample is passed
 *    through and lost ones are bridged by their neighbours);
 *    t = floor((render_us - time_a) * 65536 / (time_b - time_a)), exact
 *    for any times, then each field by its rule (zl_schema_interpolate).
 *  - HELD: the render time is at or after the newest sample with nothing
 *    to extrapolate from (one sample, extrapolate_us 0), or at the newest
 *    sample exactly, or before the oldest sample (the oldest is held).
 *  - EXTRAPOLATED: render_us is past the newest sample b: linear fields
 *    continue along the previous sample a -> b for at most
 *    s->extrapolate_us, then the entity holds where that took it:
 *    t = ONE + floor(min(render_us - time_b, extrapolate_us) * 65536 /
 *    (time_b - time_a)), at most ZL_FX_MAX. Angles stop at b, step fields
 *    keep b's, linear fields stay inside their schema range.
 * Never fails on any received data; h and s must not be NULL (asserted). */
int zl_interp_sample(const zl_interp_history *h, const zl_interp_settings *s, uint64_t render_us,
                     void *out, zl_interp_pick *pick);

/* A frame's draws: every history sampled at one render time. Histories
 * recorded on the same ticks (every entity of every snapshot) share their
 * pair and fraction, so a frame finds them once and each further draw only
 * checks that its history holds the same pair. Private fields. */
typedef struct zl_interp_frame {
    zl_interp_settings settings;
    uint64_t render_us;
    uint64_t time_a, time_b; /* the last pair found, at ages age_a, age_a - 1 */
    uint32_t age_a;          /* 0: none yet */
    zl_fx t;
    uint8_t mode;
} zl_interp_frame;

/* Starts a frame at render_us with settings s (copied). */
void zl_interp_frame_begin(zl_interp_frame *f, const zl_interp_settings *s, uint64_t render_us);

/* zl_interp_sample(h, settings, render_us, out, pick) of the frame, with
 * the same result, output and pick. */
int zl_interp_frame_sample(zl_interp_frame *f, const zl_interp_history *h, void *out,
                           zl_interp_pick *pick);

/* Stores a pick into cmd's render_tick / render_span / render_frac so the
 * server, holding the state of every tick, rebuilds exactly what was drawn
 * by zl_schema_interpolate(out, state(render_tick), state(render_tick +
 * render_span), render_frac), or state(render_tick) when render_span is 0:
 *  - BETWEEN: (tick_a, tick_b - tick_a, t), bit-exact. When the pair is
 *    more than 255 ticks apart the span does not fit: the nearer sample is
 *    sent with span 0 (a if t < ONE/2, else b) and only approximates the
 *    drawing; such a gap is a long loss the lag compensation history
 *    cannot cover anyway.
 *  - HELD: (tick_a, 0, 0), bit-exact.
 *  - EXTRAPOLATED: (tick_a, tick_b - tick_a, t) with t's whole part in
 *    render_whole: the server extrapolates the same pair as far, so a shot
 *    fired while snapshots are late is judged against the guess the
 *    client drew, bit-exact. A pair more than 255 ticks apart, or t of
 *    ZL_USERCMD_RENDER_WHOLE_MAX + 1 or more, is sent as (tick_b, 0, 0):
 *    the newest sample received.
 *  - EMPTY: (0, 0, 0): nothing was drawn.
 * Other fields of cmd are untouched. */
void zl_interp_pick_to_command(const zl_interp_pick *p, zl_usercmd *cmd);

ZL_END_DECLS

#endif
