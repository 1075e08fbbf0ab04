/* zl_schema.c - walks a field table to copy, compare, hash, quantise,
 * interpolate and delta-code states, so no game writes a serialiser (the
 * plan, zl_schema_plan.c, runs the same operations prepared once). */
#include "zl_schema_wire.h"

/* Values travel through here as int64: wide enough for every storage width
 * in both signednesses, so clamping and range arithmetic never overflow. */

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
    if ((f->flags & ~(ZL_LOCAL | ZL_DELTA | ZL_OWNER | ZL_EXTRAPOLATE | ZL_TELEPORT)) != 0 ||
        f->interp > ZL_INTERP_STEP)
        return 0;
    if ((f->flags & ZL_EXTRAPOLATE) &&
        ((f->kind != ZL_FIELD_KIND_FX && f->kind != ZL_FIELD_KIND_ANGLE) ||
         (f->flags & ZL_DELTA) || (f->kind == ZL_FIELD_KIND_FX && f->min >= f->max) ||
         zl_bits_required(max_code(f)) > 24u))
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
 * detour. The same results for every valid field (zl_schema_validate).
 * `drop`: 0, or the field's coarse for every other client's grid (only FX
 * and ANGLE have one), whose bounds sit on that grid too. */
static ALWAYS_INLINE uint32_t quantized(const zl_field *f, uint32_t raw, unsigned drop)
{
    unsigned shift;
    uint32_t half, off;
    int32_t v;
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
        shift = step_shift(f) + drop;
        half = shift ? 1u << (shift - 1u) : 0u;
        v = zl_to_i32(raw); /* FX storage is 4 bytes */
        v = v < f->min ? f->min : v > f->max ? f->max : v;
        /* v - min lies in [0, max - min]; max - min is a multiple of the
         * step below 2^32, so adding half a step cannot wrap. */
        off = (uint32_t)v - (uint32_t)f->min;
        return (uint32_t)f->min + ((off + half) >> shift << shift);
    case ZL_FIELD_KIND_INT:
        /* In 32 bits: a signed field's value is an int32, an unsigned
         * one's (min >= 0) orders as its uint32 bits. The clamped value's
         * bits are its storage. */
        if (is_signed(f)) {
            uint32_t s = 1u << (f->size * 8u - 1u);
            v = zl_to_i32((raw ^ s) - s);
            return (uint32_t)(v < f->min ? f->min : v > f->max ? f->max : v);
        }
        return raw < (uint32_t)f->min ? (uint32_t)f->min
               : raw > (uint32_t)f->max ? (uint32_t)f->max : raw;
    case ZL_FIELD_KIND_ANGLE:
        shift = step_shift(f) + drop;
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
            store_raw(f, state, quantized(f, load_raw(f, state), 0));
}

/* Only the fields with a coarser grid: the others are on theirs already. */
void zl_schema_quantize_shared(const zl_schema *s, void *state)
{
    const zl_field *f, *end;
    ZL_ASSERT(s && state);
    for (f = s->fields, end = f + s->count; f < end; f++)
        if (f->coarse != 0 && selected(f, ZL_SCHEMA_SHARED))
            store_raw(f, state, quantized(f, load_raw(f, state), f->coarse));
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

/* `step`: the field's step size (zl_moved), 0 for none. */
static void write_value(const zl_field *f, delta_out *o, uint32_t base_code, uint32_t code,
                        unsigned step)
{
    unsigned width = zl_bits_required(max_code(f));
    if (f->flags & ZL_DELTA)
        put_delta(o, base_code, code);
    else if (f->kind == ZL_FIELD_KIND_FLAGS)
        put(o, code, width);
    else
        write_change(o, width, base_code, code, f->kind == ZL_FIELD_KIND_ANGLE, step);
}

static uint32_t read_value(const zl_field *f, delta_in *in, uint32_t base_code, unsigned step)
{
    unsigned width = zl_bits_required(max_code(f));
    uint32_t code;
    if (f->flags & ZL_DELTA)
        code = base_code + (uint32_t)in_delta(in);
    else if (f->kind == ZL_FIELD_KIND_FLAGS)
        code = in_bits(in, width);
    else
        code = read_change(in, width, base_code, f->kind == ZL_FIELD_KIND_ANGLE, step);
    if (code > max_code(f)) {
        in_malformed(in);
        return 0;
    }
    return code;
}

/* A field the snapshot extrapolates (9.3): its step is not how it moves
 * next, its extrapolation is. */
static int extrapolated_field(const zl_field *f)
{
    return (f->flags & (ZL_EXTRAPOLATE | ZL_TELEPORT)) == ZL_EXTRAPOLATE;
}

void zl_schema_moved(const zl_schema *s, const void *base, const void *older, int which,
                     zl_moved *out)
{
    uint32_t place = 0;
    int i;
    zl_field coarser;
    ZL_ASSERT(s && base && older && out && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    memset(out, 0, sizeof *out);
    for (i = 0; i < s->count && place < 32u; i++) {
        const zl_field *f = for_audience(&s->fields[i], which, &coarser);
        uint32_t b, o;
        if (!selected(f, which))
            continue;
        b = code_of(f, base);
        o = code_of(f, older);
        if (b != o) {
            out->set |= 1u << place;
            if (!extrapolated_field(f)) /* DELTA and FLAGS values leave it unused */
                out->step[place] = (uint8_t)step_size(b, o, zl_bits_required(max_code(f)),
                                                      f->kind == ZL_FIELD_KIND_ANGLE);
        }
        place++;
    }
}

/* The step of the field at `place` (0 for none). */
static unsigned step_at(const zl_moved *moved, int place)
{
    return moved && place < 32 ? moved->step[place] : 0u;
}

int zl_schema_write_moved(const zl_schema *s, zl_bitwriter *w, const void *base,
                          const void *state, int which, const zl_moved *m)
{
    uint32_t start = zl_bitwriter_bits_used(w), changed = 0, moved = m ? m->set : 0u;
    int last = -1, sent = 0, place = 0;
    int i, known = which & ZL_SCHEMA_CHANGED, alike;
    zl_field coarser;
    delta_out o;
    which &= ~ZL_SCHEMA_CHANGED;
    ZL_ASSERT(s && w && state && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    ZL_ASSERT(known || moved == 0);
    for (i = 0; i < s->count; i++) {
        const zl_field *f = for_audience(&s->fields[i], which, &coarser);
        if (!selected(f, which))
            continue;
        if (code_of(f, state) != code_of(f, base)) {
            last = i;
            place = sent;
            if (sent < 32)
                changed |= 1u << sent;
        }
        sent++;
    }
    if (known && last < 0)
        return 0; /* for the caller to code otherwise */
    begin(&o, w, base == NULL);
    if (!known)
        put(&o, (uint32_t)(last >= 0), 1);
    alike = moved_alike(moved, changed, place);
    if (moved != 0)
        put(&o, (uint32_t)alike, 1);
    if (last >= 0) {
        if (!alike)
            put_last(&o, (unsigned)place, (unsigned)sent);
        for (i = 0, place = 0; i <= last; i++) {
            const zl_field *f = for_audience(&s->fields[i], which, &coarser);
            uint32_t code, base_code;
            if (!selected(f, which))
                continue;
            code = code_of(f, state);
            base_code = code_of(f, base);
            if (i < last && !alike)
                put(&o, code != base_code, 1);
            if (code != base_code)
                write_value(f, &o, base_code, code, step_at(m, place));
            place++;
        }
    }
    flush(&o);
    if (w->error != ZL_OK)
        return w->error;
    return (int)(zl_bitwriter_bits_used(w) - start);
}

int zl_schema_write_delta(const zl_schema *s, zl_bitwriter *w, const void *base,
                          const void *state, int which)
{
    return zl_schema_write_moved(s, w, base, state, which, NULL);
}

int zl_schema_read_moved(const zl_schema *s, zl_bitreader *r, const void *base, void *out,
                         int which, const zl_moved *m)
{
    uint32_t moved = m ? m->set : 0u;
    int last, place = 0, alike;
    int i, known = which & ZL_SCHEMA_CHANGED;
    zl_field coarser;
    delta_in in;
    which &= ~ZL_SCHEMA_CHANGED;
    ZL_ASSERT(s && r && out && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    ZL_ASSERT(known || moved == 0);
    in_begin(&in, r, base == NULL);
    alike = moved != 0 && in_bool(&in);
    last = alike ? (int)zl_bits_required(moved) - 1 : read_last(&in, sent_count(s, which), known);
    for (i = 0; i < s->count && r->error == ZL_OK; i++) {
        const zl_field *f = for_audience(&s->fields[i], which, &coarser);
        if (!selected(f, which))
            continue;
        if (place == last ||
            (place < last && (alike ? (int)(moved >> place) & 1 : in_bool(&in))))
            store_value(f, out,
                        decode(f, read_value(f, &in, code_of(f, base), step_at(m, place))));
        else if (out != base)
            store_value(f, out, decode(f, code_of(f, base)));
        place++;
    }
    in_end(&in);
    return r->error;
}

int zl_schema_read_delta(const zl_schema *s, zl_bitreader *r, const void *base, void *out,
                         int which)
{
    return zl_schema_read_moved(s, r, base, out, which, NULL);
}

int zl_schema_extrapolate(const zl_schema *s, void *out, const void *base, const void *older,
                          uint32_t ahead, uint32_t behind, int which)
{
    const zl_field *f, *end;
    int moved = 0;
    zl_field coarser;
    ZL_ASSERT(s && out && base && older && out != base && out != older);
    ZL_ASSERT(ahead >= 1 && ahead <= 63 && behind >= 1 && behind <= 63);
    for (f = s->fields, end = f + s->count; f < end; f++) {
        const zl_field *g;
        uint32_t b, o;
        if (!(f->flags & (ZL_EXTRAPOLATE | ZL_TELEPORT)) || !selected(f, which))
            continue;
        g = for_audience(f, which, &coarser);
        b = code_of(g, base);
        o = code_of(g, older);
        if (b == o)
            continue;
        if (f->flags & ZL_TELEPORT)
            return 0;
        if (!moved)
            memcpy(out, base, s->size);
        moved = 1;
        store_value(g, out, decode(g, extrapolated(b, o, ahead, behind, max_code(g),
                                                zl_bits_required(max_code(g)),
                                                g->kind == ZL_FIELD_KIND_ANGLE)));
    }
    return moved;
}
