/* zl_schema.h - field tables that describe a game's state structs once, and
 * the operations built on them: copy, compare, hash, quantise, interpolate,
 * delta-code. */
#ifndef ZL_SCHEMA_H
#define ZL_SCHEMA_H

#include "zl_bits.h"

ZL_BEGIN_DECLS

/* What a field holds. The kind fixes how its value is read, quantised for
 * the wire and interpolated. */
enum {
    /* A zl_fx (4 bytes). Wire: clamped to [min, max] and rounded to a step
     * of 2^-bits units (bits = fraction bits kept, 0..16; halves round up).
     * min and max are raw Q16.16 values and must be multiples of the step. */
    ZL_FIELD_KIND_FX = 0,
    /* A zl_angle (2 bytes). Wire: the top `bits` bits (1..16), rounded to
     * the nearest step (wrapping round a turn). */
    ZL_FIELD_KIND_ANGLE = 1,
    /* An integer of 1, 2 or 4 bytes in [min, max]: signed storage when
     * min < 0, unsigned otherwise; the range must fit the storage. Wire:
     * clamped to [min, max], zl_bits_required(max - min) bits. */
    ZL_FIELD_KIND_INT = 2,
    /* Unsigned bits of 1, 2 or 4 bytes; the low `bits` bits are kept. */
    ZL_FIELD_KIND_FLAGS = 3
};

/* The `mode` of a field: one interpolation rule, optionally or-ed with
 * ZL_LOCAL, ZL_DELTA and/or ZL_OWNER. */
enum {
    /* a + (b - a) * t, then clamped to [min, max]. FX and INT only. */
    ZL_INTERP_LINEAR = 0,
    /* Shortest arc between two angles (zl_angle_lerp). ANGLE only. */
    ZL_INTERP_ARC = 1,
    /* The earlier sample's value until t reaches ONE: a discrete value
     * holds from the moment it was sampled, so it switches at the later
     * sample. Any kind; the only rule allowed for FLAGS. */
    ZL_INTERP_STEP = 2,
    ZL_INTERP_MASK = 3,
    /* Client-only: never sent and never quantised. Prediction keeps its own
     * intermediate results here (Bernier); fields the protocol carries by
     * other means are marked so too. Selected only by ZL_SCHEMA_ALL. */
    ZL_LOCAL = 4,
    /* A changed value is sent as its difference from the baseline in
     * zl_bitwriter_delta's open-ended code (5 bits for -8..7) instead of
     * the size classes of other numeric fields: for counters whose range
     * is huge but whose steps are tiny. */
    ZL_DELTA = 8,
    /* Sent only to the client whose own player this state is; every other
     * client holds it as zero (Source's local-player-exclusive data):
     * velocity, ammo and timers only prediction needs. It saves their bits
     * in every other client's snapshot and leaks nothing a cheat could
     * show. Selected by ZL_SCHEMA_ALL and ZL_SCHEMA_WIRE, not SHARED. */
    ZL_OWNER = 16,
    /* FX or ANGLE, a full code of at most 24 bits: a snapshot entry may be
     * coded against the value extrapolated from the two newest states the
     * client holds (zl_schema_extrapolate), so steady motion costs nearly
     * nothing: origins and view angles. */
    ZL_EXTRAPOLATE = 32,
    /* A counter that changes when the state jumps (respawn, teleport): no
     * extrapolation across a change of it. */
    ZL_TELEPORT = 64
};

/* One field of a state struct. Build it with the ZL_FIELD_* macros. */
typedef struct zl_field {
    const char *name; /* the member's name, for diagnostics */
    int32_t min, max; /* FX: raw Q16.16 bounds; INT: value bounds; else 0 */
    uint16_t offset;  /* offsetof() the member */
    uint8_t size;     /* storage bytes: 1, 2 or 4 */
    uint8_t kind;     /* ZL_FIELD_KIND_* */
    uint8_t interp;   /* ZL_INTERP_LINEAR, _ARC or _STEP */
    uint8_t flags;    /* ZL_LOCAL, ZL_DELTA */
    uint8_t bits;     /* FX: fraction bits; ANGLE, FLAGS: bits kept; INT: 0 */
    uint8_t coarse;   /* FX, ANGLE: of those bits, how many every other
                         client does not get (its audience's grid); else 0 */
} zl_field;

/* A state layout: a table of fields over a struct of `size` bytes. Fields
 * may be listed in any order; the order is the wire order (put the fields
 * that change most often first: the delta stops at the last changed one). */
typedef struct zl_schema {
    const char *name;
    const zl_field *fields;
    uint16_t count;
    uint16_t size;
} zl_schema;

/* Field declarations, one readable line each:
 *   static const zl_field fields[] = {
 *       ZL_FIELD_FX(my_state, pos.x, -4096, 4095, 5, ZL_INTERP_LINEAR),
 *       ZL_FIELD_ANGLE(my_state, yaw, 16, ZL_INTERP_ARC),
 *       ZL_FIELD_INT(my_state, health, 0, 100, ZL_INTERP_STEP),
 *       ZL_FIELD_FLAGS(my_state, flags, 8, ZL_INTERP_STEP),
 *   };
 *   const zl_schema my_schema = ZL_SCHEMA(my_state, fields);
 * `member` may name a nested member or array element (pos.x, ammo[2]).
 * FX bounds are whole units; `mode` is a ZL_INTERP_* value | ZL_LOCAL |
 * ZL_DELTA | ZL_OWNER. zl_schema_validate() checks a table. */
#define ZL_FIELD_(type, member, kind, mode, bits, shared_bits, min, max)                     \
    {                                                                                         \
        #member, (int32_t)(min), (int32_t)(max), (uint16_t)offsetof(type, member),           \
            (uint8_t)sizeof(((type *)0)->member), (uint8_t)(kind),                           \
            (uint8_t)((mode) & ZL_INTERP_MASK), (uint8_t)((mode) & ~ZL_INTERP_MASK),          \
            (uint8_t)(bits), (uint8_t)((bits) - (shared_bits))                                \
    }
#define ZL_FIELD_FX(type, member, min_units, max_units, frac_bits, mode) \
    ZL_FIELD_FX_SHARED(type, member, min_units, max_units, frac_bits, frac_bits, mode)
#define ZL_FIELD_ANGLE(type, member, bits, mode) \
    ZL_FIELD_ANGLE_SHARED(type, member, bits, bits, mode)
#define ZL_FIELD_INT(type, member, min, max, mode) \
    ZL_FIELD_(type, member, ZL_FIELD_KIND_INT, mode, 0, 0, min, max)
#define ZL_FIELD_FLAGS(type, member, bits, mode) \
    ZL_FIELD_(type, member, ZL_FIELD_KIND_FLAGS, mode, bits, bits, 0, 0)
/* Precision per audience: the owner of the state gets frac_bits (bits),
 * every other client the coarser shared_frac_bits (shared_bits), e.g.
 * others' origins at 1/8 unit (3) where prediction needs 1/32 (5). FX
 * bounds must sit on the coarser grid. Lag compensation rewinds what the
 * others received (zl_schema_quantize_shared). */
#define ZL_FIELD_FX_SHARED(type, member, min_units, max_units, frac_bits, shared_frac_bits, mode) \
    ZL_FIELD_(type, member, ZL_FIELD_KIND_FX, mode, frac_bits, shared_frac_bits,                \
              ZL_FX_INT(min_units), ZL_FX_INT(max_units))
#define ZL_FIELD_ANGLE_SHARED(type, member, bits, shared_bits, mode) \
    ZL_FIELD_(type, member, ZL_FIELD_KIND_ANGLE, mode, bits, shared_bits, 0, 0)

#define ZL_SCHEMA(type, field_array) \
    { #type, (field_array), (uint16_t)ZL_COUNTOF(field_array), (uint16_t)sizeof(type) }

/* Which fields an operation touches: every field; those that travel on the
 * wire to the state's owner (ZL_LOCAL left out); or those every other
 * client receives (ZL_LOCAL and ZL_OWNER left out). */
enum { ZL_SCHEMA_ALL = 0, ZL_SCHEMA_WIRE = 1, ZL_SCHEMA_SHARED = 2 };

/* Or'ed into the `which` of a state code's write and read (the delta
 * functions below): the code of a state the caller says has changed, whose
 * leading "anything changed" bit is left out. A write that finds nothing
 * changed writes nothing and returns 0, for the caller to say so its own
 * way. */
#define ZL_SCHEMA_CHANGED 4

/* Starting value of zl_schema_hash (the FNV-1a 32-bit offset basis). */
#define ZL_SCHEMA_HASH_INIT 2166136261u

/* ZL_OK when every field is well formed (size, bounds, bits, rule allowed
 * for its kind, inside the struct), else ZL_ERR_INVALID. Call it once on
 * each table (tests, game start-up): the other functions trust the table. */
int zl_schema_validate(const zl_schema *s);

/* Index of the field called `name` (as written in its ZL_FIELD_* line,
 * e.g. "origin.x"), or -1 when the schema has none. */
int zl_schema_find(const zl_schema *s, const char *name);

/* Copies the selected fields from src to dst (states of this schema; they
 * may be the same). Padding and unselected fields of dst are untouched. */
void zl_schema_copy(const zl_schema *s, void *dst, const void *src, int which);

/* Index of the first selected field whose stored bits differ between a and
 * b, or s->count when none does (prediction counts mispredictions with it). */
int zl_schema_first_diff(const zl_schema *s, const void *a, const void *b, int which);
/* 1 when every selected field is bit-identical, else 0. */
int zl_schema_equal(const zl_schema *s, const void *a, const void *b, int which);

/* FNV-1a over each selected field's stored value, little-endian at its
 * storage width: independent of padding, host byte order and compiler.
 * Chain states by passing the previous result as `hash`. */
uint32_t zl_schema_hash(const zl_schema *s, const void *state, int which, uint32_t hash);

/* Rounds every wire field to exactly what a receiver reconstructs from it
 * (clamped to its range, rounded to its step). Idempotent. Simulation code
 * calls it at the end of every step so server and predicting client start
 * the next step from bit-identical states. ZL_LOCAL fields are untouched. */
void zl_schema_quantize(const zl_schema *s, void *state);
/* Takes a state quantised as above to exactly what every other client
 * holds of it: the shared fields with a coarser grid for them
 * (ZL_FIELD_*_SHARED) rounded onto it. The other fields are untouched. */
void zl_schema_quantize_shared(const zl_schema *s, void *state);

/* out = a..b at Q16.16 fraction t, field by field by its rule (see
 * ZL_INTERP_*); t outside [0, ONE] extrapolates LINEAR fields (clamped to
 * their range) and is clamped to [0, ONE] for ARC. out may alias a or b.
 * Every field is interpolated, ZL_LOCAL ones included. */
void zl_schema_interpolate(const zl_schema *s, void *out, const void *a, const void *b, zl_fx t);

/* Writes the fields `which` selects (ZL_SCHEMA_WIRE or ZL_SCHEMA_SHARED)
 * of `state` as a delta against `base` (NULL means the all-zero state).
 * Layout: one bit "anything changed"; if set, the place of the last changed
 * field among the selected ones (zl_bits_required(selected - 1) bits),
 * then for each selected field before it a changed bit and, when set, its
 * value, and the last field's value. FX and ANGLE fields are coded on the
 * audience's grid (for ZL_SCHEMA_SHARED the coarser one of a field that
 * has one). A value is, for FX, ANGLE and INT
 * fields, the signed difference from the base's code (angles the short way
 * round a turn) in an exponential-Golomb code whose parameter follows the
 * previous value of the same state, or 8 one bits and the full code
 * (docs/PROTOCOL.md 10.2); against NULL (nothing) the full code alone; for
 * FLAGS the full code; for ZL_DELTA fields zl_bitwriter_delta's code. An
 * unchanged state costs 1 bit; an FX, ANGLE or INT value never more than
 * its full code plus 8 bits. The code of a state against NULL differs from
 * its code against an all-zero base: read it against NULL. Fields are compared after quantisation, so
 * what is compared is what a receiver would see. Returns the number of
 * bits written, or the writer's sticky error (ZL_ERR_OVERFLOW) once the
 * stream is full. */
int zl_schema_write_delta(const zl_schema *s, zl_bitwriter *w, const void *base,
                          const void *state, int which);

/* Reads a delta written by zl_schema_write_delta against the same base
 * (NULL = all-zero state) with the same `which` into out: every selected
 * field of out becomes exactly the writer's quantised value; the others are
 * left untouched. out may alias base, which must then be quantised (as
 * every state a read gives is): unchanged fields are left as they are, not
 * rewritten. Returns ZL_OK, or the reader's sticky
 * error: ZL_ERR_OVERFLOW when the stream ends early, ZL_ERR_MALFORMED for a
 * field index or value outside the selection. On error out is partly
 * written and must be discarded. */
int zl_schema_read_delta(const zl_schema *s, zl_bitreader *r, const void *base, void *out,
                         int which);

/* The moved set of a base against an older state (docs/PROTOCOL.md 10.2)
 * and the size of each step taken: what both ends hold of how the fields
 * just moved. */
typedef struct zl_moved {
    uint32_t set;     /* bit i: the i-th selected field, of the first 32, moved */
    uint8_t step[32]; /* for a moved field that is not extrapolated: the
                       * width in bits of its folded step (10.2), 1..32;
                       * 0 otherwise */
} zl_moved;

/* Fills `out` with the moved set of base against older: bit i set when
 * the i-th field `which` selects (ZL_SCHEMA_WIRE or ZL_SCHEMA_SHARED),
 * among the first 32, has different codes on the audience's grid in base
 * and older (both read only, quantised), and the sizes of those steps. */
void zl_schema_moved(const zl_schema *s, const void *base, const void *older, int which,
                     zl_moved *out);

/* zl_schema_write_delta of a state taken as changed (which has
 * ZL_SCHEMA_CHANGED; a programmer error otherwise, unless moved is NULL)
 * against a base with the moved set `moved` (zl_schema_moved of the base,
 * not extrapolated, and the older state; NULL for none): when its set is
 * not 0 a bit says whether exactly the moved fields changed, and then only
 * their values follow, and the values of moved fields that are not
 * extrapolated are coded after their steps (10.2). moved NULL is
 * zl_schema_write_delta. */
int zl_schema_write_moved(const zl_schema *s, zl_bitwriter *w, const void *base,
                          const void *state, int which, const zl_moved *moved);

/* Reads what zl_schema_write_moved wrote, with the same moved set; as
 * zl_schema_read_delta otherwise. */
int zl_schema_read_moved(const zl_schema *s, zl_bitreader *r, const void *base, void *out,
                         int which, const zl_moved *moved);

/* Extrapolates the ZL_EXTRAPOLATE fields `which` selects from `older`
 * (`behind` ticks before base) to `ahead` ticks after base, on the
 * audience's grid, in codes: pred = b + round((b - o) * ahead / behind),
 * halves away from zero, ANGLE the short way round and modulo its codes,
 * FX clamped to 0..its largest code. ahead and behind: 1..63. Returns 1
 * with out (s->size bytes, not aliasing base or older) a copy of base
 * with those fields replaced; 0 when a selected ZL_TELEPORT field differs
 * between the two (out then unspecified) or no extrapolated field moved
 * (out untouched): the prediction is base itself. */
int zl_schema_extrapolate(const zl_schema *s, void *out, const void *base, const void *older,
                          uint32_t ahead, uint32_t behind, int which);

/* ---- Prepared schemas ----
 * A plan is a schema with every per-field decision taken once, at start-up:
 * each field's clamp range, shift, code width and selection, the linear and
 * arc fields listed by rule, and the bytes of the fields each selection (and
 * the step rule) touches merged into runs. The zl_schema_plan_* functions
 * give exactly the results of their zl_schema_* twins, byte for byte; the
 * wire format and the state layout stay the table's. Prepared at run time
 * rather than generated by macros: any table works, built by hand or at run
 * time; the code is one copy whatever the number of schemas (flash on small
 * targets); and a plan is a few hundred bytes of RAM the caller places. */

#if ZL_SCHEMA_PLAN_FIELDS > 255 || ZL_SCHEMA_PLAN_RUNS > 255
#error "ZL_SCHEMA_PLAN_FIELDS and ZL_SCHEMA_PLAN_RUNS are counted in bytes"
#endif

/* One field, prepared. Private. */
typedef struct zl_plan_field {
    uint32_t min;    /* stored bits of the lowest value; codes count from it */
    uint32_t span;   /* max - min: the clamp (ANGLE, FLAGS: never clamped) */
    uint16_t offset;
    uint8_t size;
    uint8_t shift;   /* code = (value - min) >> shift, rounded */
    uint8_t width;   /* bits of a full code */
    uint8_t op;      /* the ZL_INTERP_* rule and private flags */
    uint8_t sel;     /* the selections (ZL_SCHEMA_*) it belongs to, ZL_DELTA */
    uint8_t coarse;  /* bits every other client does not get */
} zl_plan_field;

/* Bytes [offset, offset + len) of a state. Private. */
typedef struct zl_plan_run {
    uint16_t offset, len;
} zl_plan_run;

/* A prepared schema. Caller-owned (static is fine), fields private. */
typedef struct zl_schema_plan {
    const zl_schema *schema;
    uint8_t planned; /* 0: the schema did not fit; the table is walked */
    uint8_t wide;    /* order[0 .. wide): LINEAR fields of 4 signed bytes, a
                        range below 2^31 */
    uint8_t linear;  /* order[wide .. linear): the other LINEAR fields */
    uint8_t arc;     /* order[linear .. linear + arc): the ARC fields */
    uint8_t runs[4]; /* where the runs of ALL, WIRE, SHARED, STEP end in run[] */
    uint8_t sent[3]; /* fields sent by WIRE, SHARED ([0] unused) */
    uint8_t teleports; /* moving[0 .. teleports): the ZL_TELEPORT fields */
    uint8_t moving_end; /* moving[teleports .. moving_end): the other
                           ZL_EXTRAPOLATE fields */
    uint8_t order[ZL_SCHEMA_PLAN_FIELDS];
    uint8_t moving[ZL_SCHEMA_PLAN_FIELDS];
    zl_plan_field field[ZL_SCHEMA_PLAN_FIELDS]; /* in table order */
    zl_plan_run run[ZL_SCHEMA_PLAN_RUNS];
} zl_schema_plan;

/* Prepares s (which must outlive p) into p. Returns ZL_OK; ZL_ERR_FULL when
 * s has more fields, or its selections more runs, than a plan holds
 * (ZL_SCHEMA_PLAN_FIELDS, ZL_SCHEMA_PLAN_RUNS); ZL_ERR_INVALID when s fails
 * zl_schema_validate or two of its fields share bytes. On an error p still
 * works: every function walks the table, with the same results. */
int zl_schema_plan_init(zl_schema_plan *p, const zl_schema *s);

/* The zl_schema_* operations of p's schema: same arguments, same results. */
void zl_schema_plan_copy(const zl_schema_plan *p, void *dst, const void *src, int which);
int zl_schema_plan_first_diff(const zl_schema_plan *p, const void *a, const void *b, int which);
int zl_schema_plan_equal(const zl_schema_plan *p, const void *a, const void *b, int which);
uint32_t zl_schema_plan_hash(const zl_schema_plan *p, const void *state, int which, uint32_t hash);
void zl_schema_plan_quantize(const zl_schema_plan *p, void *state);
void zl_schema_plan_interpolate(const zl_schema_plan *p, void *out, const void *a, const void *b,
                                zl_fx t);
int zl_schema_plan_write_delta(const zl_schema_plan *p, zl_bitwriter *w, const void *base,
                               const void *state, int which);
int zl_schema_plan_read_delta(const zl_schema_plan *p, zl_bitreader *r, const void *base,
                              void *out, int which);
int zl_schema_plan_read_moved(const zl_schema_plan *p, zl_bitreader *r, const void *base,
                              void *out, int which, const zl_moved *moved);
int zl_schema_plan_extrapolate(const zl_schema_plan *p, void *out, const void *base,
                               const void *older, uint32_t ahead, uint32_t behind, int which);

/* The bits zl_schema_plan_extrapolate(p, scratch, base, older, ahead,
 * behind, which) and then zl_schema_write_moved against scratch (or
 * against base when that returns 0), with the moved set of base and older
 * when which has ZL_SCHEMA_CHANGED (else none), write, without the scratch state: the
 * extrapolated fields' predicted codes are taken as their bases' codes.
 * base, older and state: p's schema's size (at most ZL_STATE_MAX when p
 * did not fit a plan: the walk's scratch), not NULL. Returns the bits
 * written or the writer's sticky error, as zl_schema_plan_write_delta. */
int zl_schema_plan_write_extrapolated(const zl_schema_plan *p, zl_bitwriter *w, const void *base,
                                      const void *older, uint32_t ahead, uint32_t behind,
                                      const void *state, int which);

ZL_END_DECLS

#endif
