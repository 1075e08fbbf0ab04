/* zl_schema_plan.c - schemas prepared once (plans): every per-field decision
 * of the walk taken in advance, for the copies, quantising, interpolation and
 * delta codes that run for every entity of every snapshot. */
#include "zl_schema_wire.h"

/* ---- Plans ----
 * A plan takes every per-field decision of the walk (zl_schema.c) once. Values
 * are handled as 32-bit patterns: a field's value minus its min, taken
 * modulo 2^32, is its place in the range whatever the signedness, so one
 * clamp serves every kind. The walk stays the reference (tests/test_plan.c
 * compares the two byte for byte) and the path of unplanned callers. */

/* zl_plan_field.op, above the ZL_INTERP_* rule. */
enum {
    OP_SIGNED = 4,     /* values order as int32 (else as uint32) */
    OP_SEXT = 8,       /* a signed value narrower than 4 bytes */
    OP_WRAPS = 16,     /* codes wrap (ANGLE, FLAGS) instead of clamping */
    OP_QUANT_SAME = 32, /* quantising cannot change it: skipped */
    OP_WHOLE = 64,      /* a change is sent as the full code (FLAGS) */
    OP_MOVING = 128     /* extrapolated (ZL_EXTRAPOLATE, not ZL_TELEPORT) */
};

/* zl_plan_field.sel: bit `which` for each selection, and ZL_DELTA. */
#define SEL(which) (1u << (which))
ZL_STATIC_ASSERT(ZL_DELTA > SEL(ZL_SCHEMA_SHARED) && ZL_DELTA < 256, sel_fits_a_byte);

static void prepare(const zl_field *f, zl_plan_field *p)
{
    p->offset = f->offset;
    p->size = f->size;
    p->op = f->interp;
    p->coarse = f->coarse;
    p->sel = (uint8_t)(SEL(ZL_SCHEMA_ALL) | (f->flags & ZL_DELTA));
    if (selected(f, ZL_SCHEMA_WIRE))
        p->sel = (uint8_t)(p->sel | SEL(ZL_SCHEMA_WIRE));
    if (selected(f, ZL_SCHEMA_SHARED))
        p->sel = (uint8_t)(p->sel | SEL(ZL_SCHEMA_SHARED));
    p->width = (uint8_t)zl_bits_required(max_code(f));
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
    case ZL_FIELD_KIND_INT:
        p->shift = (uint8_t)(f->kind == ZL_FIELD_KIND_FX ? step_shift(f) : 0u);
        p->min = (uint32_t)f->min;
        p->span = (uint32_t)f->max - (uint32_t)f->min;
        if (is_signed(f))
            p->op = (uint8_t)(p->op | OP_SIGNED | (f->size < 4 ? OP_SEXT : 0));
        break;
    default: /* ANGLE keeps its top bits, FLAGS its low ones */
        p->shift = (uint8_t)(f->kind == ZL_FIELD_KIND_ANGLE ? step_shift(f) : 0u);
        p->min = 0;
        p->span = f->kind == ZL_FIELD_KIND_ANGLE ? 0xFFFFu : 0xFFFFFFFFu;
        p->op = (uint8_t)(p->op | OP_WRAPS | (f->kind == ZL_FIELD_KIND_FLAGS ? OP_WHOLE : 0));
        break;
    }
}

static inline uint32_t plan_load(const zl_plan_field *f, const void *state)
{
    return load_at(state, f->offset, f->size);
}

static inline void plan_store(const zl_plan_field *f, void *state, uint32_t raw)
{
    store_at(state, f->offset, f->size, raw);
}

/* v - min clamped to [0, span], v a 32-bit pattern ordered as int32 when
 * is_signed, else as uint32. Outside the range, v - min (mod 2^32) lies
 * above span: up to top - min for values above max, beyond for those
 * below min (they wrapped), top being the largest value of the order. */
static inline uint32_t place(uint32_t v, uint32_t min, uint32_t span, int is_signed_order)
{
    uint32_t off = v - min;
    if (off > span)
        off = off > (is_signed_order ? 0x7FFFFFFFu : 0xFFFFFFFFu) - min ? 0u : span;
    return off;
}

/* The stored bits' place in the field's range, clamped. (raw ^ s) - s
 * sign-extends without converting to a signed type. */
static inline uint32_t place_of(const zl_plan_field *f, uint32_t raw)
{
    if (f->op & OP_SEXT) {
        uint32_t s = 1u << (f->size * 8u - 1u);
        raw = (raw ^ s) - s;
    }
    return place(raw, f->min, f->span, f->op & OP_SIGNED);
}

/* Codes on a grid `drop` bits coarser than the field's own (0, or its
 * `coarse` for every other client): a step 2^drop times larger and as many
 * bits fewer, since min and span sit on that grid. */
static inline uint32_t plan_max_code(const zl_plan_field *f, unsigned drop)
{
    return (f->op & OP_WRAPS) ? low_mask(f->width - drop) : f->span >> (f->shift + drop);
}

/* The place rounded to a step (halves up). place + half a step cannot
 * wrap: span is a multiple of the step. */
static inline uint32_t plan_encode(const zl_plan_field *f, unsigned drop, uint32_t raw)
{
    unsigned shift = f->shift + drop;
    uint32_t code = (place_of(f, raw) + ((1u << shift) >> 1)) >> shift;
    return (f->op & OP_WRAPS) ? code & plan_max_code(f, drop) : code;
}

static inline uint32_t plan_decode(const zl_plan_field *f, unsigned drop, uint32_t code)
{
    return f->min + (code << (f->shift + drop));
}

static inline uint32_t plan_code_of(const zl_plan_field *f, unsigned drop, const void *base)
{
    return plan_encode(f, drop, base ? plan_load(f, base) : 0u);
}

/* The drop of `which`'s audience: every other client's grid is coarser. */
static inline unsigned drop_for(const zl_plan_field *f, int which)
{
    return which == ZL_SCHEMA_SHARED ? f->coarse : 0u;
}

static const zl_plan_run *runs_of(const zl_schema_plan *p, int list, const zl_plan_run **end)
{
    *end = &p->run[p->runs[list]];
    return &p->run[list ? p->runs[list - 1] : 0];
}

/* Runs are a few bytes each: words and bytes moved inline beat a library
 * call per run. Forward copies are safe for dst == src, the only overlap
 * the API allows. */
static inline void copy_runs(const zl_schema_plan *p, int list, void *dst, const void *src)
{
    const zl_plan_run *r, *end;
    for (r = runs_of(p, list, &end); r < end; r++) {
        uint8_t *d = (uint8_t *)dst + r->offset;
        const uint8_t *from = (const uint8_t *)src + r->offset;
        unsigned len = r->len;
        uint32_t word;
        for (; len >= 4; len -= 4, d += 4, from += 4) {
            memcpy(&word, from, 4);
            memcpy(d, &word, 4);
        }
        for (; len > 0; len--)
            *d++ = *from++;
    }
}

static int overlapping(const zl_schema *s)
{
    int i, j;
    for (i = 0; i < s->count; i++)
        for (j = i + 1; j < s->count; j++)
            if (s->fields[i].offset < s->fields[j].offset + s->fields[j].size &&
                s->fields[j].offset < s->fields[i].offset + s->fields[i].size)
                return 1;
    return 0;
}

/* Quantising stores back what it loaded when every stored value is a
 * code: the whole storage range, no step, nothing masked off. */
static int quantize_keeps(const zl_plan_field *f)
{
    if (f->shift != 0)
        return 0;
    if (f->op & OP_WRAPS)
        return f->width == f->size * 8u;
    return f->span == low_mask(f->size * 8u);
}

/* Appends to p->run the bytes of the fields of selection `which` (or of
 * the STEP rule for `which` 3), in memory order, adjacent ones merged;
 * ends list `which`. 0 when the runs do not fit. */
static int add_runs(zl_schema_plan *p, int which)
{
    uint8_t idx[ZL_SCHEMA_PLAN_FIELDS];
    int n = 0, i, j, first = which ? p->runs[which - 1] : 0, at = first;
    for (i = 0; i < p->schema->count; i++) {
        const zl_plan_field *f = &p->field[i];
        if (which < 3 ? (f->sel & SEL(which)) != 0 : (f->op & ZL_INTERP_MASK) == ZL_INTERP_STEP) {
            for (j = n++; j > 0 && p->field[idx[j - 1]].offset > f->offset; j--)
                idx[j] = idx[j - 1];
            idx[j] = (uint8_t)i;
        }
    }
    for (i = 0; i < n; i++) {
        const zl_plan_field *f = &p->field[idx[i]];
        if (at > first && p->run[at - 1].offset + p->run[at - 1].len == f->offset) {
            p->run[at - 1].len = (uint16_t)(p->run[at - 1].len + f->size);
            continue;
        }
        if (at == ZL_SCHEMA_PLAN_RUNS)
            return 0;
        p->run[at].offset = f->offset;
        p->run[at].len = f->size;
        at++;
    }
    p->runs[which] = (uint8_t)at;
    return 1;
}

/* Q16.16 and other 4-byte signed fields of a range below 2^31: their
 * stored bits read as int32 are the value, so clamping is two compares, and
 * the difference of two clamped values is an int32. */
static int is_wide(const zl_plan_field *f)
{
    return f->size == 4 && (f->op & OP_SIGNED) && f->span <= (uint32_t)INT32_MAX;
}

/* zl_fx_lerp(a, b, t) for 0 <= t <= ONE and |b - a| <= INT32_MAX: the
 * product fits one 32x32 multiply, and the result lies between a and b, so
 * nothing saturates. Rounding halves away from zero is adding 0x8000, less
 * one below zero, then flooring; bits 16..47 of that sum are the step in
 * two's complement whatever the shift does with the sign. */
static inline int32_t lerp_between(int32_t a, int32_t b, zl_fx t)
{
    int64_t m = (int64_t)zl_to_i32((uint32_t)b - (uint32_t)a) * t;
    uint64_t sum = (uint64_t)m + 0x8000u - (m < 0 ? 1u : 0u);
    return zl_to_i32((uint32_t)a + (uint32_t)(sum >> 16));
}

int zl_schema_plan_init(zl_schema_plan *p, const zl_schema *s)
{
    int i, which;
    ZL_ASSERT(p && s);
    memset(p, 0, sizeof *p);
    p->schema = s;
    if (zl_schema_validate(s) != ZL_OK || overlapping(s))
        return ZL_ERR_INVALID;
    if (s->count > ZL_SCHEMA_PLAN_FIELDS)
        return ZL_ERR_FULL;
    for (i = 0; i < s->count; i++) {
        prepare(&s->fields[i], &p->field[i]);
        if (quantize_keeps(&p->field[i]))
            p->field[i].op = (uint8_t)(p->field[i].op | OP_QUANT_SAME);
        if (s->fields[i].interp == ZL_INTERP_LINEAR && is_wide(&p->field[i]))
            p->order[p->wide++] = (uint8_t)i;
    }
    p->linear = p->wide;
    for (i = 0; i < s->count; i++)
        if (s->fields[i].interp == ZL_INTERP_LINEAR && !is_wide(&p->field[i]))
            p->order[p->linear++] = (uint8_t)i;
    for (i = 0; i < s->count; i++)
        if (s->fields[i].interp == ZL_INTERP_ARC)
            p->order[p->linear + p->arc++] = (uint8_t)i;
    for (i = 0; i < s->count; i++)
        if (s->fields[i].flags & ZL_TELEPORT)
            p->moving[p->teleports++] = (uint8_t)i;
    p->moving_end = p->teleports;
    for (i = 0; i < s->count; i++)
        if ((s->fields[i].flags & (ZL_EXTRAPOLATE | ZL_TELEPORT)) == ZL_EXTRAPOLATE) {
            p->field[i].op = (uint8_t)(p->field[i].op | OP_MOVING);
            p->moving[p->moving_end++] = (uint8_t)i;
        }
    for (which = 0; which < 4; which++)
        if (!add_runs(p, which))
            return ZL_ERR_FULL;
    p->sent[ZL_SCHEMA_WIRE] = (uint8_t)sent_count(s, ZL_SCHEMA_WIRE);
    p->sent[ZL_SCHEMA_SHARED] = (uint8_t)sent_count(s, ZL_SCHEMA_SHARED);
    p->planned = 1;
    return ZL_OK;
}

void zl_schema_plan_copy(const zl_schema_plan *p, void *dst, const void *src, int which)
{
    ZL_ASSERT(p && dst && src);
    if (p->planned)
        copy_runs(p, which, dst, src);
    else
        zl_schema_copy(p->schema, dst, src, which);
}

/* Field by field with early exit is the fastest compare measured (byte
 * runs compared word by word cost more on the Cortex-M3), so the walk
 * serves. */
int zl_schema_plan_first_diff(const zl_schema_plan *p, const void *a, const void *b, int which)
{
    ZL_ASSERT(p && a && b);
    return zl_schema_first_diff(p->schema, a, b, which);
}

int zl_schema_plan_equal(const zl_schema_plan *p, const void *a, const void *b, int which)
{
    return zl_schema_plan_first_diff(p, a, b, which) == p->schema->count;
}

/* A hash runs over every field in table order at its width: a plan knows
 * nothing the walk would skip. */
uint32_t zl_schema_plan_hash(const zl_schema_plan *p, const void *state, int which, uint32_t hash)
{
    ZL_ASSERT(p && state);
    return zl_schema_hash(p->schema, state, which, hash);
}

void zl_schema_plan_quantize(const zl_schema_plan *p, void *state)
{
    const zl_plan_field *f, *end;
    ZL_ASSERT(p && state);
    if (!p->planned) {
        zl_schema_quantize(p->schema, state);
        return;
    }
    for (f = p->field, end = f + p->schema->count; f < end; f++)
        if ((f->sel & SEL(ZL_SCHEMA_WIRE)) && !(f->op & OP_QUANT_SAME))
            plan_store(f, state, plan_decode(f, 0, plan_encode(f, 0, plan_load(f, state))));
}

/* Each field reads only its own bytes of a and b and writes only its own
 * of out, so out may alias either and the plan may take fields in any
 * order (its fields never share bytes). Both ends are clamped, which keeps
 * the lerp in int32, and zl_fx_lerp on raw values is exactly an integer
 * lerp, so INT and FX share it; ARC clamps t to [0, ONE]; STEP fields are
 * a's until t reaches ONE. */
void zl_schema_plan_interpolate(const zl_schema_plan *p, void *out, const void *a, const void *b,
                                zl_fx t)
{
    const uint8_t *o, *wide_end, *lin_end, *arc_end;
    int between;
    ZL_ASSERT(p && out && a && b);
    if (!p->planned) {
        zl_schema_interpolate(p->schema, out, a, b, t);
        return;
    }
    o = p->order;
    wide_end = o + p->wide;
    lin_end = o + p->linear;
    arc_end = lin_end + p->arc;
    between = t >= 0 && t <= ZL_FX_ONE;
    for (; o < wide_end; o++) {
        const zl_plan_field *f = &p->field[*o];
        int32_t lo = zl_to_i32(f->min), hi = zl_to_i32(f->min + f->span), va, vb, r;
        uint32_t raw;
        memcpy(&raw, (const uint8_t *)a + f->offset, 4);
        va = zl_to_i32(raw);
        memcpy(&raw, (const uint8_t *)b + f->offset, 4);
        vb = zl_to_i32(raw);
        va = va < lo ? lo : va > hi ? hi : va;
        vb = vb < lo ? lo : vb > hi ? hi : vb;
        if (between) {
            r = lerp_between(va, vb, t);
        } else {
            r = zl_fx_lerp(va, vb, t);
            r = r < lo ? lo : r > hi ? hi : r;
        }
        raw = (uint32_t)r;
        memcpy((uint8_t *)out + f->offset, &raw, 4);
    }
    for (; o < lin_end; o++) {
        const zl_plan_field *f = &p->field[*o];
        int32_t va = zl_to_i32(f->min + place_of(f, plan_load(f, a)));
        int32_t vb = zl_to_i32(f->min + place_of(f, plan_load(f, b)));
        uint32_t r = (uint32_t)zl_fx_lerp(va, vb, t);
        plan_store(f, out, f->min + place(r, f->min, f->span, 1));
    }
    copy_runs(p, 3, out, t >= ZL_FX_ONE ? b : a);
    t = t < 0 ? 0 : t > ZL_FX_ONE ? ZL_FX_ONE : t;
    for (; o < arc_end; o++) {
        const zl_plan_field *f = &p->field[*o];
        plan_store(f, out, zl_angle_lerp((zl_angle)plan_load(f, a), (zl_angle)plan_load(f, b), t));
    }
}

/* Extrapolation's older state and distances (zl_schema_plan_extrapolate). */
typedef struct moving_base {
    const void *older;
    uint32_t ahead, behind;
} moving_base;

/* 1 when a selected ZL_TELEPORT field's code differs between base and
 * older: then nothing is extrapolated. Equal bits are the same code. */
static int teleported(const zl_schema_plan *p, const void *base, const void *older, int which)
{
    const uint8_t *m, *end;
    for (m = p->moving, end = m + p->teleports; m < end; m++) {
        const zl_plan_field *f = &p->field[*m];
        unsigned drop = drop_for(f, which);
        uint32_t b = plan_load(f, base), o = plan_load(f, older);
        if ((f->sel & SEL(which)) && b != o &&
            plan_encode(f, drop, b) != plan_encode(f, drop, o))
            return 1;
    }
    return 0;
}

/* The code of extrapolated field f on the audience's grid: base's code b
 * moved along the line from older's code o (b itself when they are equal). */
static inline uint32_t predicted(const zl_plan_field *f, unsigned drop, uint32_t b, uint32_t o,
                                 const moving_base *x)
{
    return extrapolated(b, o, x->ahead, x->behind, plan_max_code(f, drop), f->width - drop,
                        f->op & OP_WRAPS);
}

/* A changed field's value against its base's code, as read_value and
 * zl_schema_plan_read_delta take it back. */
static void plan_write_value(const zl_plan_field *f, delta_out *o, unsigned drop,
                             uint32_t base_code, uint32_t code, unsigned step)
{
    if (f->sel & ZL_DELTA)
        put_delta(o, base_code, code);
    else if (f->op & OP_WHOLE)
        put(o, code, f->width);
    else
        write_change(o, f->width - drop, base_code, code, f->op & OP_WRAPS, step);
}

/* A place's bit in a moved or changed set (zl_schema_moved): places from
 * 32 on have none. */
#if ZL_SCHEMA_PLAN_FIELDS <= 32
#define PLACE_BIT(k) (1u << (k))
#else
#define PLACE_BIT(k) ((k) < 32 ? 1u << (k) : 0u)
#endif

/* `gap` changed bits of 0, then a 1 when `one`. */
static inline void put_gap(delta_out *o, unsigned gap, unsigned one)
{
    for (; gap > 31u; gap -= 16u)
        put(o, 0, 16);
    put(o, one << gap, gap + one);
}

/* The walk's two passes with each code taken once: the first keeps the
 * changed fields' places and codes (and their bases'), the second writes
 * them, the unchanged places between as runs of 0 bits. With older (x's,
 * or a teleport's), the moved set of a known change is found on the way
 * (zl_schema_write_moved); with x, the extrapolated fields' base codes are
 * predicted ones, which is what coding against the extrapolated state
 * gives: its stored values decode from those codes and encode back to
 * them. */
static int write_delta(const zl_schema_plan *p, zl_bitwriter *w, const void *base,
                       const void *state, int which, int known, const void *older,
                       const moving_base *x)
{
    uint32_t code[ZL_SCHEMA_PLAN_FIELDS], base_code[ZL_SCHEMA_PLAN_FIELDS];
    uint8_t field[ZL_SCHEMA_PLAN_FIELDS], place[ZL_SCHEMA_PLAN_FIELDS];
    uint8_t step[ZL_SCHEMA_PLAN_FIELDS]; /* zl_moved's, by changed field */
    uint32_t start = zl_bitwriter_bits_used(w), moved = 0, changed = 0;
    int sent = 0, n = 0, i, k, alike;
    unsigned next = 0, last;
    delta_out o;
    for (i = 0; i < p->schema->count; i++) {
        const zl_plan_field *f = &p->field[i];
        uint32_t raw, base_raw, c, b;
        unsigned drop, size = 0;
        if (!(f->sel & SEL(which)))
            continue;
        raw = plan_load(f, state);
        base_raw = base ? plan_load(f, base) : 0u;
        if (older && plan_load(f, older) != base_raw) { /* the same bits: the same code */
            uint32_t was;
            drop = drop_for(f, which);
            was = plan_encode(f, drop, plan_load(f, older));
            b = plan_encode(f, drop, base_raw);
            if (was != b) {
                moved |= PLACE_BIT(sent);
                if (known && !(f->op & OP_MOVING) && PLACE_BIT(sent) != 0)
                    size = step_size(b, was, f->width - drop, f->op & OP_WRAPS);
                else if (x && (f->op & OP_MOVING))
                    b = predicted(f, drop, b, was, x);
            }
            c = plan_encode(f, drop, raw);
        } else if (raw == base_raw) { /* the same code: no need to find it */
            sent++;
            continue;
        } else {
            drop = drop_for(f, which);
            c = plan_encode(f, drop, raw);
            b = plan_encode(f, drop, base_raw);
        }
        if (c != b) {
            step[n] = (uint8_t)size;
            field[n] = (uint8_t)i;
            place[n] = (uint8_t)sent;
            code[n] = c;
            base_code[n++] = b;
            changed |= PLACE_BIT(sent);
        }
        sent++;
    }
    if (known && n == 0)
        return 0; /* for the caller to code otherwise */
    last = n > 0 ? place[n - 1] : 0u;
    alike = known && moved_alike(moved, changed, (int)last);
    begin(&o, w, base == NULL);
    if (!known)
        put(&o, (uint32_t)(n > 0), 1);
    else if (moved != 0)
        put(&o, (uint32_t)alike, 1);
    if (n > 0 && !alike)
        put_last(&o, last, (unsigned)sent);
    for (k = 0; k < n; k++) {
        const zl_plan_field *f = &p->field[field[k]];
        if (!alike)
            put_gap(&o, place[k] - next, place[k] < last);
        next = place[k] + 1u;
        plan_write_value(f, &o, drop_for(f, which), base_code[k], code[k], step[k]);
    }
    flush(&o);
    if (w->error != ZL_OK)
        return w->error;
    return (int)(zl_bitwriter_bits_used(w) - start);
}

int zl_schema_plan_write_delta(const zl_schema_plan *p, zl_bitwriter *w, const void *base,
                               const void *state, int which)
{
    int known = which & ZL_SCHEMA_CHANGED, fields = which & ~ZL_SCHEMA_CHANGED;
    ZL_ASSERT(p && w && state && (fields == ZL_SCHEMA_WIRE || fields == ZL_SCHEMA_SHARED));
    if (!p->planned)
        return zl_schema_write_delta(p->schema, w, base, state, which);
    return write_delta(p, w, base, state, fields, known, NULL, NULL);
}

int zl_schema_plan_write_extrapolated(const zl_schema_plan *p, zl_bitwriter *w, const void *base,
                                      const void *older, uint32_t ahead, uint32_t behind,
                                      const void *state, int which)
{
    moving_base x;
    int known = which & ZL_SCHEMA_CHANGED, fields = which & ~ZL_SCHEMA_CHANGED;
    ZL_ASSERT(p && w && base && older && state &&
              (fields == ZL_SCHEMA_WIRE || fields == ZL_SCHEMA_SHARED));
    ZL_ASSERT(ahead >= 1 && ahead <= 63 && behind >= 1 && behind <= 63);
    if (!p->planned) {
        uint32_t scratch[ZL_STATE_MAX / 4];
        zl_moved moved;
        ZL_ASSERT(p->schema->size <= sizeof scratch);
        if (known)
            zl_schema_moved(p->schema, base, older, fields, &moved);
        if (zl_schema_extrapolate(p->schema, scratch, base, older, ahead, behind, fields))
            base = scratch;
        return zl_schema_write_moved(p->schema, w, base, state, which, known ? &moved : NULL);
    }
    if (teleported(p, base, older, fields))
        return write_delta(p, w, base, state, fields, known, older, NULL);
    x.older = older;
    x.ahead = ahead;
    x.behind = behind;
    return write_delta(p, w, base, state, fields, known, older, &x);
}

/* Commands are read in one copy per selection (`which` a constant): the
 * audience's grid and the field test fold away, and what they held in
 * registers is free for the reads. */
static ALWAYS_INLINE int read_delta(const zl_schema_plan *p, zl_bitreader *r,
                                    const void *base, void *out, int which, int known)
{
    /* Bounds read once: the stores below could alias the plan. */
    const zl_plan_field *f = p->field, *end = f + p->schema->count;
    int last, place = 0;
    delta_in in;
    in_begin(&in, r, base == NULL);
    last = read_last(&in, p->sent[which], known);
    for (; f < end && r->error == ZL_OK; f++) {
        uint32_t code;
        unsigned drop;
        if (place > last && out == base)
            break; /* the rest keep the base's values */
        if (!(f->sel & SEL(which)))
            continue;
        /* Only what is written needs the audience's grid. */
        if (place == last || (place < last && in_bool(&in))) {
            drop = drop_for(f, which);
            if (f->sel & ZL_DELTA)
                code = plan_code_of(f, drop, base) + (uint32_t)in_delta(&in);
            else if (f->op & OP_WHOLE) /* the base's code is not needed */
                code = in_bits(&in, f->width);
            else
                code = read_change(&in, f->width - drop, plan_code_of(f, drop, base),
                                   f->op & OP_WRAPS, 0);
            if (code > plan_max_code(f, drop)) {
                in_malformed(&in);
                code = 0;
            }
            plan_store(f, out, plan_decode(f, drop, code));
        } else if (out != base) {
            drop = drop_for(f, which);
            plan_store(f, out, plan_decode(f, drop, plan_code_of(f, drop, base)));
        }
        place++;
    }
    in_end(&in);
    return r->error;
}

int zl_schema_plan_read_delta(const zl_schema_plan *p, zl_bitreader *r, const void *base,
                              void *out, int which)
{
    int known = which & ZL_SCHEMA_CHANGED, fields = which & ~ZL_SCHEMA_CHANGED;
    ZL_ASSERT(p && r && out && (fields == ZL_SCHEMA_WIRE || fields == ZL_SCHEMA_SHARED));
    if (!p->planned)
        return zl_schema_read_delta(p->schema, r, base, out, which);
    if (fields == ZL_SCHEMA_WIRE)
        return read_delta(p, r, base, out, ZL_SCHEMA_WIRE, known);
    return read_delta(p, r, base, out, ZL_SCHEMA_SHARED, known);
}

int zl_schema_plan_read_moved(const zl_schema_plan *p, zl_bitreader *r, const void *base,
                              void *out, int which, const zl_moved *moved)
{
    int known = which & ZL_SCHEMA_CHANGED, fields = which & ~ZL_SCHEMA_CHANGED;
    ZL_ASSERT(p && r && out && (fields == ZL_SCHEMA_WIRE || fields == ZL_SCHEMA_SHARED));
    ZL_ASSERT(known || moved == NULL || moved->set == 0);
    /* The walk reads a code with a moved set: command reads keep the
     * plan's copies to themselves. */
    if ((moved && moved->set != 0) || !p->planned)
        return zl_schema_read_moved(p->schema, r, base, out, which, moved);
    return zl_schema_plan_read_delta(p, r, base, out, which);
}

/* Over the short list of flagged fields; out is written only once
 * something is extrapolated. */
int zl_schema_plan_extrapolate(const zl_schema_plan *p, void *out, const void *base,
                               const void *older, uint32_t ahead, uint32_t behind, int which)
{
    const uint8_t *m, *end;
    moving_base x;
    int moved = 0;
    ZL_ASSERT(p && out && base && older && out != base && out != older);
    ZL_ASSERT(ahead >= 1 && ahead <= 63 && behind >= 1 && behind <= 63);
    if (!p->planned)
        return zl_schema_extrapolate(p->schema, out, base, older, ahead, behind, which);
    if (teleported(p, base, older, which))
        return 0;
    x.older = older;
    x.ahead = ahead;
    x.behind = behind;
    for (m = p->moving + p->teleports, end = p->moving + p->moving_end; m < end; m++) {
        const zl_plan_field *f = &p->field[*m];
        unsigned drop = drop_for(f, which);
        uint32_t b = plan_load(f, base), o = plan_load(f, older);
        if (!(f->sel & SEL(which)) || b == o) /* the same bits: the same code */
            continue;
        b = plan_encode(f, drop, b);
        o = plan_encode(f, drop, o);
        if (b == o)
            continue;
        if (!moved)
            memcpy(out, base, p->schema->size);
        moved = 1;
        plan_store(f, out, plan_decode(f, drop, predicted(f, drop, b, o, &x)));
    }
    return moved;
}
