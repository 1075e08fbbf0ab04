/* zl_schema.c - walks a field table to copy, compare, hash, quantise,
 * interpolate and delta-code states, so no game writes a serialiser; and
 * runs the same operations on schemas prepared once (plans). */
#include "zl_schema.h"

#include <string.h>

#include "zl_int.h"

/* Values travel through here as int64: wide enough for every storage width
 * in both signednesses, so clamping and range arithmetic never overflow. */

static int selected(const zl_field *f, int which)
{
    if (which == ZL_SCHEMA_ALL)
        return 1;
    if (f->flags & ZL_LOCAL)
        return 0;
    return which == ZL_SCHEMA_WIRE || (f->flags & ZL_OWNER) == 0;
}

static int is_signed(const zl_field *f)
{
    return f->kind == ZL_FIELD_KIND_FX || (f->kind == ZL_FIELD_KIND_INT && f->min < 0);
}

/* The stored bits of a field of `size` bytes at `offset`, zero-extended.
 * memcpy because offsets come from a table and the state may be any
 * buffer: no type punning, no alignment trap. */
static inline uint32_t load_at(const void *state, unsigned offset, unsigned size)
{
    const uint8_t *p = (const uint8_t *)state + offset;
    uint16_t v16;
    uint32_t v32;
    if (size == 1)
        return *p;
    if (size == 2) {
        memcpy(&v16, p, 2);
        return v16;
    }
    memcpy(&v32, p, 4);
    return v32;
}

static inline void store_at(void *state, unsigned offset, unsigned size, uint32_t raw)
{
    uint8_t *p = (uint8_t *)state + offset;
    uint16_t v16 = (uint16_t)raw;
    if (size == 1)
        *p = (uint8_t)raw;
    else if (size == 2)
        memcpy(p, &v16, 2);
    else
        memcpy(p, &raw, 4);
}

static uint32_t load_raw(const zl_field *f, const void *state)
{
    return load_at(state, f->offset, f->size);
}

static void store_raw(const zl_field *f, void *state, uint32_t raw)
{
    store_at(state, f->offset, f->size, raw);
}

/* Sign extension by arithmetic on the bits: (raw ^ s) - s maps the top bit
 * to its negative weight without converting an out-of-range unsigned value
 * to a signed type (implementation-defined in C). */
static int64_t load_value_of(const zl_field *f, uint32_t raw)
{
    int64_t sign;
    if (!is_signed(f))
        return raw;
    sign = (int64_t)1 << (f->size * 8u - 1u);
    return (int64_t)(raw ^ (uint32_t)sign) - sign;
}

static int64_t load_value(const zl_field *f, const void *state)
{
    return load_value_of(f, load_raw(f, state));
}

static void store_value(const zl_field *f, void *state, int64_t v)
{
    /* Conversion to unsigned is defined modulo 2^32: the low bytes are the
     * two's complement storage of v. */
    store_raw(f, state, (uint32_t)((uint64_t)v & 0xFFFFFFFFu));
}

/* Shift from a raw value to its wire step (FX and ANGLE). */
static unsigned step_shift(const zl_field *f)
{
    return 16u - f->bits;
}

static uint32_t low_mask(unsigned bits)
{
    return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
}

/* Wire codes run from 0 to max_code; a code is a value relative to the
 * bottom of its range, counted in steps. */
static uint32_t max_code(const zl_field *f)
{
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
        return ((uint32_t)f->max - (uint32_t)f->min) >> step_shift(f);
    case ZL_FIELD_KIND_INT:
        return (uint32_t)f->max - (uint32_t)f->min;
    default:
        return low_mask(f->bits);
    }
}

static uint32_t encode(const zl_field *f, int64_t v)
{
    unsigned shift;
    int64_t half;
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
        shift = step_shift(f);
        half = shift ? (int64_t)1 << (shift - 1u) : 0;
        /* v - min >= 0 after clamping, so the shift sees no negative value;
         * min and max sit on the step grid, so rounding stays in range. */
        return (uint32_t)((zl_clamp64(v, f->min, f->max) - f->min + half) >> shift);
    case ZL_FIELD_KIND_INT:
        return (uint32_t)(zl_clamp64(v, f->min, f->max) - f->min);
    case ZL_FIELD_KIND_ANGLE:
        shift = step_shift(f);
        half = shift ? (int64_t)1 << (shift - 1u) : 0;
        return (uint32_t)((v + half) >> shift) & max_code(f);
    default:
        return (uint32_t)v & max_code(f);
    }
}

static int64_t decode(const zl_field *f, uint32_t code)
{
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
        return f->min + ((int64_t)code << step_shift(f));
    case ZL_FIELD_KIND_INT:
        return f->min + (int64_t)code;
    case ZL_FIELD_KIND_ANGLE:
        return (int64_t)code << step_shift(f);
    default:
        return code;
    }
}

/* The value a receiver would reconstruct; a NULL base is the zero state. */
static uint32_t code_of(const zl_field *f, const void *state)
{
    return encode(f, state ? load_value(f, state) : 0);
}

static int valid_field(const zl_field *f, uint16_t state_size)
{
    unsigned storage_bits = f->size * 8u;
    if (f->size != 1 && f->size != 2 && f->size != 4)
        return 0;
    if (f->coarse != 0 && !(f->kind == ZL_FIELD_KIND_FX ? f->coarse <= f->bits
                                                         : f->kind == ZL_FIELD_KIND_ANGLE &&
                                                               f->coarse < f->bits))
        return 0;
    if ((uint32_t)f->offset + f->size > state_size)
        return 0;
    if ((f->flags & ~(ZL_LOCAL | ZL_DELTA | ZL_OWNER)) != 0 || f->interp > ZL_INTERP_STEP)
        return 0;
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
        /* Bounds on the coarser grid are on the finer one too. */
        return f->size == 4 && f->bits <= 16 && f->min < f->max &&
               ((uint32_t)f->min & low_mask(step_shift(f) + f->coarse)) == 0 &&
               ((uint32_t)f->max & low_mask(step_shift(f) + f->coarse)) == 0 &&
               f->interp != ZL_INTERP_ARC;
    case ZL_FIELD_KIND_ANGLE:
        return f->size == 2 && f->bits >= 1 && f->bits <= 16 && f->interp != ZL_INTERP_LINEAR;
    case ZL_FIELD_KIND_INT:
        if (f->min > f->max || f->bits != 0 || f->interp == ZL_INTERP_ARC)
            return 0;
        if (f->min < 0)
            return (int64_t)f->min >= -((int64_t)1 << (storage_bits - 1u)) &&
                   (int64_t)f->max < ((int64_t)1 << (storage_bits - 1u));
        return (int64_t)f->max < ((int64_t)1 << storage_bits);
    case ZL_FIELD_KIND_FLAGS:
        return f->bits >= 1 && f->bits <= storage_bits && f->interp == ZL_INTERP_STEP;
    default:
        return 0;
    }
}

int zl_schema_validate(const zl_schema *s)
{
    uint16_t i;
    if (!s || !s->fields || s->count == 0)
        return ZL_ERR_INVALID;
    for (i = 0; i < s->count; i++)
        if (!valid_field(&s->fields[i], s->size))
            return ZL_ERR_INVALID;
    return ZL_OK;
}

int zl_schema_find(const zl_schema *s, const char *name)
{
    int i;
    ZL_ASSERT(s && name);
    for (i = 0; i < s->count; i++)
        if (strcmp(s->fields[i].name, name) == 0)
            return i;
    return -1;
}

void zl_schema_copy(const zl_schema *s, void *dst, const void *src, int which)
{
    uint16_t i;
    ZL_ASSERT(s && dst && src);
    for (i = 0; i < s->count; i++)
        if (selected(&s->fields[i], which))
            store_raw(&s->fields[i], dst, load_raw(&s->fields[i], src));
}

int zl_schema_first_diff(const zl_schema *s, const void *a, const void *b, int which)
{
    uint16_t i;
    ZL_ASSERT(s && a && b);
    for (i = 0; i < s->count; i++)
        if (selected(&s->fields[i], which) &&
            load_raw(&s->fields[i], a) != load_raw(&s->fields[i], b))
            return i;
    return s->count;
}

int zl_schema_equal(const zl_schema *s, const void *a, const void *b, int which)
{
    return zl_schema_first_diff(s, a, b, which) == s->count;
}

uint32_t zl_schema_hash(const zl_schema *s, const void *state, int which, uint32_t hash)
{
    uint16_t i;
    unsigned byte;
    ZL_ASSERT(s && state);
    for (i = 0; i < s->count; i++) {
        uint32_t raw;
        if (!selected(&s->fields[i], which))
            continue;
        raw = load_raw(&s->fields[i], state);
        for (byte = 0; byte < s->fields[i].size; byte++) {
            hash ^= (raw >> (byte * 8u)) & 0xFFu;
            hash *= 16777619u;
        }
    }
    return hash;
}

/* decode(encode(v)) on the stored bits, in 32-bit steps: quantising runs
 * after every predicted command, so it skips the wire codes and the int64
 * detour. The same results for every valid field (zl_schema_validate). */
static uint32_t quantized(const zl_field *f, uint32_t raw)
{
    unsigned shift;
    uint32_t half, off;
    int32_t v;
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
        shift = step_shift(f);
        half = shift ? 1u << (shift - 1u) : 0u;
        v = zl_to_i32(raw); /* FX storage is 4 bytes */
        v = v < f->min ? f->min : v > f->max ? f->max : v;
        /* v - min lies in [0, max - min]; max - min is a multiple of the
         * step below 2^32, so adding half a step cannot wrap. */
        off = (uint32_t)v - (uint32_t)f->min;
        return (uint32_t)f->min + ((off + half) >> shift << shift);
    case ZL_FIELD_KIND_INT:
        /* The low 32 bits of the clamped value are its storage. */
        return (uint32_t)zl_clamp64(load_value_of(f, raw), f->min, f->max);
    case ZL_FIELD_KIND_ANGLE:
        shift = step_shift(f);
        half = shift ? 1u << (shift - 1u) : 0u;
        /* Wrapping round a turn is the 16-bit store. */
        return (raw + half) >> shift << shift;
    default:
        return raw & low_mask(f->bits);
    }
}

/* The field as `which`'s audience receives it: every other client
 * (ZL_SCHEMA_SHARED) gets `coarse` bits fewer, on a coarser grid. */
static const zl_field *for_audience(const zl_field *f, int which, zl_field *coarser)
{
    if (which != ZL_SCHEMA_SHARED || f->coarse == 0)
        return f;
    *coarser = *f;
    coarser->bits = (uint8_t)(f->bits - f->coarse);
    coarser->coarse = 0;
    return coarser;
}

void zl_schema_quantize(const zl_schema *s, void *state)
{
    const zl_field *f, *end;
    ZL_ASSERT(s && state);
    /* Bounds read once: the stores below could alias the table. */
    for (f = s->fields, end = f + s->count; f < end; f++)
        if (selected(f, ZL_SCHEMA_WIRE))
            store_raw(f, state, quantized(f, load_raw(f, state)));
}

/* Only the fields with a coarser grid: the others are on theirs already. */
void zl_schema_quantize_shared(const zl_schema *s, void *state)
{
    const zl_field *f, *end;
    zl_field coarser;
    ZL_ASSERT(s && state);
    for (f = s->fields, end = f + s->count; f < end; f++)
        if (f->coarse != 0 && selected(f, ZL_SCHEMA_SHARED))
            store_raw(f, state,
                      quantized(for_audience(f, ZL_SCHEMA_SHARED, &coarser), load_raw(f, state)));
}

static int64_t interpolate_field(const zl_field *f, int64_t a, int64_t b, zl_fx t)
{
    switch (f->interp) {
    case ZL_INTERP_LINEAR:
        /* Clamping first keeps both ends in int32; zl_fx_lerp on raw values
         * is exactly an integer lerp, so INT and FX share it. */
        a = zl_clamp64(a, f->min, f->max);
        b = zl_clamp64(b, f->min, f->max);
        return zl_clamp64(zl_fx_lerp((int32_t)a, (int32_t)b, t), f->min, f->max);
    case ZL_INTERP_ARC:
        t = t < 0 ? 0 : t > ZL_FX_ONE ? ZL_FX_ONE : t;
        return zl_angle_lerp((zl_angle)a, (zl_angle)b, t);
    default:
        return t >= ZL_FX_ONE ? b : a;
    }
}

void zl_schema_interpolate(const zl_schema *s, void *out, const void *a, const void *b, zl_fx t)
{
    uint16_t i;
    ZL_ASSERT(s && out && a && b);
    for (i = 0; i < s->count; i++) {
        const zl_field *f = &s->fields[i];
        store_value(f, out, interpolate_field(f, load_value(f, a), load_value(f, b), t));
    }
}

/* ---- Differences ----
 * A changed FX, ANGLE or INT field (not ZL_DELTA) travels as a 2-bit class
 * and then either the signed difference from its base's code in the
 * class's width, or, in the last class, its full code: movement between
 * two snapshots is far smaller than a field's range, so it seldom needs
 * the full width, and never costs more than the full width plus 2 bits.
 * The widths are the full code's less 8, 6 and 3 bits (at least 1): on
 * the FPS's 18-bit origins 10, 12 and 15 bits, up to 16, 64 and 512 units
 * either way, which cover a step, a run and a fall between snapshots
 * ~100 ms apart; on 16-bit angles 8, 10 and 13 bits, up to 0.7, 2.8 and
 * 22 degrees. (Cut points measured on the snapshot suite's 64-player
 * stream: the next bit either way cost more.) FLAGS are sent whole: their
 * bits are not magnitudes. Angles differ the short way round a turn. */
#define CLASS_BITS 2u
#define CLASS_WHOLE 3u

static inline unsigned class_width(unsigned width, unsigned c)
{
    static const uint8_t narrower[CLASS_WHOLE] = {8, 6, 3};
    return width > narrower[c] ? width - narrower[c] : 1u;
}

/* code - base as the receiver adds it back to base: modulo 2^32, or for
 * codes that wrap (ANGLE) the shortest way round their 2^width values. */
static inline uint32_t difference(uint32_t code, uint32_t base, unsigned width, int wraps)
{
    uint32_t d = code - base, s;
    if (!wraps)
        return d;
    s = 1u << (width - 1u);
    return ((d & low_mask(width)) ^ s) - s;
}

/* A delta's bits on their way to the writer: gathered in a word, so its
 * many short pieces (a flag, a class, a small difference) reach the writer
 * 32 bits at a time rather than in a call each. The bits are the same. */
typedef struct delta_out {
    zl_bitwriter *w;
    uint32_t bits;
    unsigned count; /* bits gathered, below 32 between puts */
} delta_out;

/* 32-bit arithmetic only: a Cortex-M3 shifts a 64-bit word in six or more
 * instructions. */
static inline void put(delta_out *o, uint32_t value, unsigned n)
{
    unsigned room = 32u - o->count;
    o->bits |= value << o->count; /* what does not fit falls off the top */
    if (n < room) {
        o->count += n;
        return;
    }
    zl_bitwriter_bits(o->w, o->bits, 32);
    o->bits = room < 32u ? value >> room : 0u;
    o->count = n - room;
}

static void begin(delta_out *o, zl_bitwriter *w)
{
    o->w = w;
    o->bits = 0;
    o->count = 0;
}

/* Hands the writer what is gathered. */
static void flush(delta_out *o)
{
    zl_bitwriter_bits(o->w, o->bits, o->count);
    o->bits = 0;
    o->count = 0;
}

/* A ZL_DELTA field's difference, in the writer's own coding. */
static void put_delta(delta_out *o, uint32_t base_code, uint32_t code)
{
    flush(o);
    zl_bitwriter_delta(o->w, zl_to_i32(code - base_code)); /* wraps mod 2^32 */
}

static void write_change(delta_out *o, unsigned width, uint32_t base, uint32_t code, int wraps)
{
    uint32_t d = difference(code, base, width, wraps);
    unsigned c;
    for (c = 0; c < CLASS_WHOLE; c++) {
        unsigned k = class_width(width, c);
        if (d + (1u << (k - 1u)) < (1u << k)) { /* d fits k bits, signed */
            put(o, c, CLASS_BITS);
            put(o, d & low_mask(k), k);
            return;
        }
    }
    put(o, CLASS_WHOLE, CLASS_BITS);
    put(o, code, width);
}

/* The code write_change sent, not yet checked against the field's range.
 * (v ^ s) - s sign-extends a k-bit value in unsigned arithmetic. */
static inline uint32_t read_change(zl_bitreader *r, unsigned width, uint32_t base, int wraps)
{
    /* Two one-bit reads, low bit first, cost less than one of two bits. */
    unsigned c = (unsigned)zl_bitreader_bool(r), k;
    uint32_t s, code;
    c |= (unsigned)zl_bitreader_bool(r) << 1;
    if (c == CLASS_WHOLE)
        return zl_bitreader_bits(r, width);
    k = class_width(width, c);
    s = 1u << (k - 1u);
    code = base + ((zl_bitreader_bits(r, k) ^ s) - s);
    return wraps ? code & low_mask(width) : code;
}

static void write_value(const zl_field *f, delta_out *o, uint32_t base_code, uint32_t code)
{
    unsigned width = zl_bits_required(max_code(f));
    if (f->flags & ZL_DELTA)
        put_delta(o, base_code, code);
    else if (f->kind == ZL_FIELD_KIND_FLAGS)
        put(o, code, width);
    else
        write_change(o, width, base_code, code, f->kind == ZL_FIELD_KIND_ANGLE);
}

/* Sets ZL_ERR_MALFORMED unless an earlier error already stuck. */
static void malformed(zl_bitreader *r)
{
    if (r->error == ZL_OK)
        r->error = ZL_ERR_MALFORMED;
}

/* A delta's header: the place of the last changed field among the `sent`
 * fields of the selection, or -1 when nothing changed or the place is out
 * of range (then malformed). */
static int read_last(zl_bitreader *r, unsigned sent)
{
    uint32_t index;
    if (!zl_bitreader_bool(r))
        return -1;
    index = zl_bitreader_bits(r, zl_bits_required(sent - 1u));
    if (index < sent)
        return (int)index;
    malformed(r);
    return -1;
}

/* How many fields `which` sends. */
static unsigned sent_count(const zl_schema *s, int which)
{
    unsigned n = 0;
    uint16_t i;
    for (i = 0; i < s->count; i++)
        n += (unsigned)selected(&s->fields[i], which);
    return n;
}

static uint32_t read_value(const zl_field *f, zl_bitreader *r, uint32_t base_code)
{
    unsigned width = zl_bits_required(max_code(f));
    uint32_t code;
    if (f->flags & ZL_DELTA)
        code = base_code + (uint32_t)zl_bitreader_delta(r);
    else if (f->kind == ZL_FIELD_KIND_FLAGS)
        code = zl_bitreader_bits(r, width);
    else
        code = read_change(r, width, base_code, f->kind == ZL_FIELD_KIND_ANGLE);
    if (code > max_code(f)) {
        malformed(r);
        return 0;
    }
    return code;
}

int zl_schema_write_delta(const zl_schema *s, zl_bitwriter *w, const void *base,
                          const void *state, int which)
{
    uint32_t start = zl_bitwriter_bits_used(w);
    int last = -1, sent = 0, place = 0;
    int i;
    zl_field coarser;
    delta_out o;
    ZL_ASSERT(s && w && state && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    for (i = 0; i < s->count; i++) {
        const zl_field *f = for_audience(&s->fields[i], which, &coarser);
        if (!selected(f, which))
            continue;
        if (code_of(f, state) != code_of(f, base)) {
            last = i;
            place = sent;
        }
        sent++;
    }
    begin(&o, w);
    put(&o, (uint32_t)(last >= 0), 1);
    if (last >= 0) {
        put(&o, (uint32_t)place, zl_bits_required((uint32_t)sent - 1u));
        for (i = 0; i <= last; i++) {
            const zl_field *f = for_audience(&s->fields[i], which, &coarser);
            uint32_t code, base_code;
            if (!selected(f, which))
                continue;
            code = code_of(f, state);
            base_code = code_of(f, base);
            if (i < last)
                put(&o, code != base_code, 1);
            if (code != base_code)
                write_value(f, &o, base_code, code);
        }
    }
    flush(&o);
    if (w->error != ZL_OK)
        return w->error;
    return (int)(zl_bitwriter_bits_used(w) - start);
}

int zl_schema_read_delta(const zl_schema *s, zl_bitreader *r, const void *base, void *out,
                         int which)
{
    int last, place = 0;
    int i;
    zl_field coarser;
    ZL_ASSERT(s && r && out && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    last = read_last(r, sent_count(s, which));
    for (i = 0; i < s->count && r->error == ZL_OK; i++) {
        const zl_field *f = for_audience(&s->fields[i], which, &coarser);
        if (!selected(f, which))
            continue;
        if (place == last || (place < last && zl_bitreader_bool(r)))
            store_value(f, out, decode(f, read_value(f, r, code_of(f, base))));
        else if (out != base)
            store_value(f, out, decode(f, code_of(f, base)));
        place++;
    }
    return r->error;
}

/* ---- Plans ----
 * A plan takes every per-field decision of the walk above once. Values
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
    OP_WHOLE = 64       /* a change is sent as the full code (FLAGS) */
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

/* A changed field's value against its base's code, as read_value and
 * zl_schema_plan_read_delta take it back. */
static void plan_write_value(const zl_plan_field *f, delta_out *o, unsigned drop,
                             uint32_t base_code, uint32_t code)
{
    if (f->sel & ZL_DELTA)
        put_delta(o, base_code, code);
    else if (f->op & OP_WHOLE)
        put(o, code, f->width);
    else
        write_change(o, f->width - drop, base_code, code, f->op & OP_WRAPS);
}

/* The walk's two passes with each code taken once: the sent fields' codes
 * and their bases' are kept from the first pass for the second. */
int zl_schema_plan_write_delta(const zl_schema_plan *p, zl_bitwriter *w, const void *base,
                               const void *state, int which)
{
    uint32_t code[ZL_SCHEMA_PLAN_FIELDS], base_code[ZL_SCHEMA_PLAN_FIELDS];
    uint8_t field[ZL_SCHEMA_PLAN_FIELDS];
    uint32_t start;
    int last = -1, sent = 0, i;
    delta_out o;
    ZL_ASSERT(p && w && state && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    if (!p->planned)
        return zl_schema_write_delta(p->schema, w, base, state, which);
    start = zl_bitwriter_bits_used(w);
    for (i = 0; i < p->schema->count; i++) {
        const zl_plan_field *f = &p->field[i];
        uint32_t raw, base_raw;
        unsigned drop;
        if (!(f->sel & SEL(which)))
            continue;
        raw = plan_load(f, state);
        base_raw = base ? plan_load(f, base) : 0u;
        if (raw == base_raw) { /* the same code: no need to find it */
            code[sent] = 0;
            base_code[sent] = 0;
        } else {
            drop = drop_for(f, which);
            code[sent] = plan_encode(f, drop, raw);
            base_code[sent] = plan_encode(f, drop, base_raw);
            if (code[sent] != base_code[sent])
                last = sent;
        }
        field[sent++] = (uint8_t)i;
    }
    begin(&o, w);
    put(&o, (uint32_t)(last >= 0), 1);
    if (last >= 0) {
        put(&o, (uint32_t)last, zl_bits_required((uint32_t)sent - 1u));
        for (i = 0; i <= last; i++) {
            const zl_plan_field *f = &p->field[field[i]];
            int changed = code[i] != base_code[i];
            if (i < last)
                put(&o, (uint32_t)changed, 1);
            if (changed)
                plan_write_value(f, &o, drop_for(f, which), base_code[i], code[i]);
        }
    }
    flush(&o);
    if (w->error != ZL_OK)
        return w->error;
    return (int)(zl_bitwriter_bits_used(w) - start);
}

int zl_schema_plan_read_delta(const zl_schema_plan *p, zl_bitreader *r, const void *base,
                              void *out, int which)
{
    const zl_schema *s;
    int last, place = 0;
    int i;
    ZL_ASSERT(p && r && out && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    s = p->schema;
    if (!p->planned)
        return zl_schema_read_delta(s, r, base, out, which);
    last = read_last(r, p->sent[which]);
    for (i = 0; i < s->count && r->error == ZL_OK; i++) {
        const zl_plan_field *f = &p->field[i];
        uint32_t code;
        unsigned drop;
        if (place > last && out == base)
            break; /* the rest keep the base's values */
        if (!(f->sel & SEL(which)))
            continue;
        /* Only what is written needs the audience's grid. */
        if (place == last || (place < last && zl_bitreader_bool(r))) {
            drop = drop_for(f, which);
            if (f->sel & ZL_DELTA)
                code = plan_code_of(f, drop, base) + (uint32_t)zl_bitreader_delta(r);
            else if (f->op & OP_WHOLE) /* the base's code is not needed */
                code = zl_bitreader_bits(r, f->width);
            else
                code = read_change(r, f->width - drop, plan_code_of(f, drop, base),
                                   f->op & OP_WRAPS);
            if (code > plan_max_code(f, drop)) {
                malformed(r);
                code = 0;
            }
            plan_store(f, out, plan_decode(f, drop, code));
        } else if (out != base) {
            drop = drop_for(f, which);
            plan_store(f, out, plan_decode(f, drop, plan_code_of(f, drop, base)));
        }
        place++;
    }
    return r->error;
}
