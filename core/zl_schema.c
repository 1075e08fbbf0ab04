/* zl_schema.c - walks a field table to copy, compare, hash, quantise,
 * interpolate and delta-code states, so no game writes a serialiser. */
#include "zl_schema.h"

#include <string.h>

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

/* The stored bits, zero-extended. memcpy because offsets come from a table
 * and the state may be any buffer: no type punning, no alignment trap. */
static uint32_t load_raw(const zl_field *f, const void *state)
{
    const uint8_t *p = (const uint8_t *)state + f->offset;
    uint16_t v16;
    uint32_t v32;
    if (f->size == 1)
        return *p;
    if (f->size == 2) {
        memcpy(&v16, p, 2);
        return v16;
    }
    memcpy(&v32, p, 4);
    return v32;
}

static void store_raw(const zl_field *f, void *state, uint32_t raw)
{
    uint8_t *p = (uint8_t *)state + f->offset;
    uint16_t v16 = (uint16_t)raw;
    if (f->size == 1)
        *p = (uint8_t)raw;
    else if (f->size == 2)
        memcpy(p, &v16, 2);
    else
        memcpy(p, &raw, 4);
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

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
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
        return (uint32_t)((clamp64(v, f->min, f->max) - f->min + half) >> shift);
    case ZL_FIELD_KIND_INT:
        return (uint32_t)(clamp64(v, f->min, f->max) - f->min);
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

/* Two's complement reading of a 32-bit pattern, without the
 * implementation-defined unsigned-to-signed conversion. */
static int32_t to_i32(uint32_t u)
{
    return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

static int valid_field(const zl_field *f, uint16_t state_size)
{
    unsigned storage_bits = f->size * 8u;
    if (f->size != 1 && f->size != 2 && f->size != 4)
        return 0;
    if ((uint32_t)f->offset + f->size > state_size)
        return 0;
    if ((f->flags & ~(ZL_LOCAL | ZL_DELTA | ZL_OWNER)) != 0 || f->interp > ZL_INTERP_STEP)
        return 0;
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
        return f->size == 4 && f->bits <= 16 && f->min < f->max &&
               ((uint32_t)f->min & low_mask(step_shift(f))) == 0 &&
               ((uint32_t)f->max & low_mask(step_shift(f))) == 0 &&
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
        v = to_i32(raw); /* FX storage is 4 bytes */
        v = v < f->min ? f->min : v > f->max ? f->max : v;
        /* v - min lies in [0, max - min]; max - min is a multiple of the
         * step below 2^32, so adding half a step cannot wrap. */
        off = (uint32_t)v - (uint32_t)f->min;
        return (uint32_t)f->min + ((off + half) >> shift << shift);
    case ZL_FIELD_KIND_INT:
        /* The low 32 bits of the clamped value are its storage. */
        return (uint32_t)clamp64(load_value_of(f, raw), f->min, f->max);
    case ZL_FIELD_KIND_ANGLE:
        shift = step_shift(f);
        half = shift ? 1u << (shift - 1u) : 0u;
        /* Wrapping round a turn is the 16-bit store. */
        return (raw + half) >> shift << shift;
    default:
        return raw & low_mask(f->bits);
    }
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

static int64_t interpolate_field(const zl_field *f, int64_t a, int64_t b, zl_fx t)
{
    switch (f->interp) {
    case ZL_INTERP_LINEAR:
        /* Clamping first keeps both ends in int32; zl_fx_lerp on raw values
         * is exactly an integer lerp, so INT and FX share it. */
        a = clamp64(a, f->min, f->max);
        b = clamp64(b, f->min, f->max);
        return clamp64(zl_fx_lerp((int32_t)a, (int32_t)b, t), f->min, f->max);
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

static void write_value(const zl_field *f, zl_bitwriter *w, uint32_t base_code, uint32_t code)
{
    if (f->flags & ZL_DELTA)
        zl_bitwriter_delta(w, to_i32(code - base_code)); /* wraps mod 2^32 */
    else
        zl_bitwriter_bits(w, code, zl_bits_required(max_code(f)));
}

/* Sets ZL_ERR_MALFORMED unless an earlier error already stuck. */
static void malformed(zl_bitreader *r)
{
    if (r->error == ZL_OK)
        r->error = ZL_ERR_MALFORMED;
}

static uint32_t read_value(const zl_field *f, zl_bitreader *r, uint32_t base_code)
{
    uint32_t code;
    if (f->flags & ZL_DELTA)
        code = base_code + (uint32_t)zl_bitreader_delta(r);
    else
        code = zl_bitreader_bits(r, zl_bits_required(max_code(f)));
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
    int last = -1;
    int i;
    ZL_ASSERT(s && w && state && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    for (i = 0; i < s->count; i++) {
        const zl_field *f = &s->fields[i];
        if (selected(f, which) && code_of(f, state) != code_of(f, base))
            last = i;
    }
    zl_bitwriter_bool(w, last >= 0);
    if (last >= 0) {
        zl_bitwriter_bits(w, (uint32_t)last, zl_bits_required(s->count - 1u));
        for (i = 0; i <= last; i++) {
            const zl_field *f = &s->fields[i];
            uint32_t code, base_code;
            if (!selected(f, which))
                continue;
            code = code_of(f, state);
            base_code = code_of(f, base);
            if (i < last)
                zl_bitwriter_bool(w, code != base_code);
            if (code != base_code)
                write_value(f, w, base_code, code);
        }
    }
    if (w->error != ZL_OK)
        return w->error;
    return (int)(zl_bitwriter_bits_used(w) - start);
}

int zl_schema_read_delta(const zl_schema *s, zl_bitreader *r, const void *base, void *out,
                         int which)
{
    int last = -1;
    int i;
    ZL_ASSERT(s && r && out && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    if (zl_bitreader_bool(r)) {
        uint32_t index = zl_bitreader_bits(r, zl_bits_required(s->count - 1u));
        /* The last changed field must exist and be one that is sent. */
        if (index >= s->count || !selected(&s->fields[index], which))
            malformed(r);
        else
            last = (int)index;
    }
    for (i = 0; i < s->count && r->error == ZL_OK; i++) {
        const zl_field *f = &s->fields[i];
        uint32_t code;
        if (!selected(f, which))
            continue;
        code = code_of(f, base);
        if (i == last || (i < last && zl_bitreader_bool(r)))
            code = read_value(f, r, code);
        store_value(f, out, decode(f, code));
    }
    return r->error;
}
