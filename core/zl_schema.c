/* zl_schema.c - copies, compares, hashes, quantises, interpolates and
 * delta-codes states by their field tables, walked or prepared as plans. */
#include "zl_schema.h"

#include <string.h>

/* Every operation runs on prepared fields (zl_plan_field): a plan holds
 * them, the table walk prepares each as it goes. One code path, so a plan
 * cannot give another result than the walk. Values are handled as 32-bit
 * patterns: a field's value minus its min, taken modulo 2^32, is its place
 * in the range whatever the signedness, so one clamp serves every kind. */

/* zl_plan_field.op, above the ZL_INTERP_* rule. */
enum {
    OP_SIGNED = 4,     /* values order as int32 (else as uint32) */
    OP_SEXT = 8,       /* a signed value narrower than 4 bytes */
    OP_WRAPS = 16,     /* codes wrap (ANGLE, FLAGS) instead of clamping */
    OP_QUANT_SAME = 32 /* quantising cannot change it: skipped (plans only) */
};

/* zl_plan_field.sel: bit `which` for each selection, and ZL_DELTA. */
#define SEL(which) (1u << (which))
ZL_STATIC_ASSERT(ZL_DELTA > SEL(ZL_SCHEMA_SHARED) && ZL_DELTA < 256, sel_fits_a_byte);

static uint32_t low_mask(unsigned bits)
{
    return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
}

/* `wire`: with the width of full codes, which only coding needs (a walk
 * that quantises or interpolates skips the bit count). */
static inline void prepare(const zl_field *f, zl_plan_field *p, int wire)
{
    p->offset = f->offset;
    p->size = f->size;
    p->op = f->interp;
    p->spare = 0;
    p->sel = (uint8_t)(SEL(ZL_SCHEMA_ALL) | (f->flags & ZL_DELTA));
    if (!(f->flags & ZL_LOCAL))
        p->sel = (uint8_t)(p->sel | SEL(ZL_SCHEMA_WIRE) |
                           ((f->flags & ZL_OWNER) ? 0u : SEL(ZL_SCHEMA_SHARED)));
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
    case ZL_FIELD_KIND_INT:
        p->shift = (uint8_t)(f->kind == ZL_FIELD_KIND_FX ? 16u - f->bits : 0u);
        p->min = (uint32_t)f->min;
        p->span = (uint32_t)f->max - (uint32_t)f->min;
        p->width = (uint8_t)(wire ? zl_bits_required(p->span >> p->shift) : 0u);
        if (f->kind == ZL_FIELD_KIND_FX || f->min < 0)
            p->op = (uint8_t)(p->op | OP_SIGNED | (f->size < 4 ? OP_SEXT : 0));
        break;
    default: /* ANGLE keeps its top bits, FLAGS its low ones */
        p->shift = (uint8_t)(f->kind == ZL_FIELD_KIND_ANGLE ? 16u - f->bits : 0u);
        p->min = 0;
        p->span = f->kind == ZL_FIELD_KIND_ANGLE ? 0xFFFFu : 0xFFFFFFFFu;
        p->width = f->bits;
        p->op = (uint8_t)(p->op | OP_WRAPS);
        break;
    }
}

/* The stored bits, zero-extended. memcpy because offsets come from a table
 * and the state may be any buffer: no type punning, no alignment trap. */
static inline uint32_t load(const zl_plan_field *f, const void *state)
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

static inline void store(const zl_plan_field *f, void *state, uint32_t raw)
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

/* v - min clamped to [0, span], v a 32-bit pattern ordered as int32 when
 * is_signed, else as uint32. Outside the range, v - min (mod 2^32) lies
 * above span: up to top - min for values above max, beyond for those
 * below min (they wrapped), top being the largest value of the order. */
static inline uint32_t place(uint32_t v, uint32_t min, uint32_t span, int is_signed)
{
    uint32_t off = v - min;
    if (off > span)
        off = off > (is_signed ? 0x7FFFFFFFu : 0xFFFFFFFFu) - min ? 0u : span;
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

/* Wire codes run from 0 to max_code. */
static inline uint32_t max_code(const zl_plan_field *f)
{
    return (f->op & OP_WRAPS) ? low_mask(f->width) : f->span >> f->shift;
}

/* The code a receiver gets: the place rounded to a step (halves up).
 * place + half a step cannot wrap: span is a multiple of the step. */
static inline uint32_t encode(const zl_plan_field *f, uint32_t raw)
{
    uint32_t code = (place_of(f, raw) + ((1u << f->shift) >> 1)) >> f->shift;
    return (f->op & OP_WRAPS) ? code & max_code(f) : code;
}

static inline uint32_t decode(const zl_plan_field *f, uint32_t code)
{
    return f->min + (code << f->shift);
}

/* The code of a field of base; a NULL base is the zero state. */
static inline uint32_t code_of(const zl_plan_field *f, const void *base)
{
    return encode(f, base ? load(f, base) : 0u);
}

/* Two's complement reading of a 32-bit pattern, without the
 * implementation-defined unsigned-to-signed conversion. */
static inline int32_t to_i32(uint32_t u)
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
               ((uint32_t)f->min & low_mask(16u - f->bits)) == 0 &&
               ((uint32_t)f->max & low_mask(16u - f->bits)) == 0 &&
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

/* Field i of s, prepared: the plan's, or made in tmp from the table (with
 * the code width when `wire`). */
static const zl_plan_field *field_at(const zl_schema *s, const zl_schema_plan *p, int i,
                                     zl_plan_field *tmp, int wire)
{
    if (p)
        return &p->field[i];
    prepare(&s->fields[i], tmp, wire);
    return tmp;
}

/* The plan when it holds the schema, else NULL: the table is walked. */
static const zl_schema_plan *usable(const zl_schema_plan *p)
{
    return p->planned ? p : NULL;
}

static const zl_plan_run *runs_of(const zl_schema_plan *p, int list, const zl_plan_run **end)
{
    *end = &p->run[p->runs[list]];
    return &p->run[list ? p->runs[list - 1] : 0];
}

/* Copies a field's (or run's) bytes; dst may be src (memmove). */
static inline void copy_bytes(void *dst, const void *src, unsigned offset, unsigned len)
{
    memmove((uint8_t *)dst + offset, (const uint8_t *)src + offset, len);
}

static void copy(const zl_schema *s, const zl_schema_plan *p, void *dst, const void *src,
                 int which)
{
    int i;
    if (p) {
        const zl_plan_run *r, *end;
        for (r = runs_of(p, which, &end); r < end; r++)
            copy_bytes(dst, src, r->offset, r->len);
        return;
    }
    for (i = 0; i < s->count; i++) {
        const zl_field *f = &s->fields[i];
        zl_plan_field tmp;
        prepare(f, &tmp, 0);
        if (tmp.sel & SEL(which))
            copy_bytes(dst, src, f->offset, f->size);
    }
}

static int first_diff(const zl_schema *s, const zl_schema_plan *p, const void *a, const void *b,
                      int which)
{
    zl_plan_field tmp;
    int i;
    if (p) {
        /* Equal runs are the usual answer; only a difference needs the
         * field order. */
        const zl_plan_run *r, *end;
        for (r = runs_of(p, which, &end); r < end; r++)
            if (memcmp((const uint8_t *)a + r->offset, (const uint8_t *)b + r->offset, r->len))
                break;
        if (r == end)
            return s->count;
    }
    for (i = 0; i < s->count; i++) {
        const zl_plan_field *f = field_at(s, p, i, &tmp, 0);
        if ((f->sel & SEL(which)) && load(f, a) != load(f, b))
            return i;
    }
    return s->count;
}

static uint32_t hash_of(const zl_schema *s, const zl_schema_plan *p, const void *state,
                        int which, uint32_t hash)
{
    zl_plan_field tmp;
    unsigned byte;
    int i;
    for (i = 0; i < s->count; i++) {
        const zl_plan_field *f = field_at(s, p, i, &tmp, 0);
        uint32_t raw;
        if (!(f->sel & SEL(which)))
            continue;
        raw = load(f, state);
        for (byte = 0; byte < f->size; byte++) {
            hash ^= (raw >> (byte * 8u)) & 0xFFu;
            hash *= 16777619u;
        }
    }
    return hash;
}

static inline void quantize_field(const zl_plan_field *f, void *state)
{
    if ((f->sel & SEL(ZL_SCHEMA_WIRE)) && !(f->op & OP_QUANT_SAME))
        store(f, state, decode(f, encode(f, load(f, state))));
}

/* Quantising runs after every predicted command: the walk prepares each
 * field where it is used, so the compiler keeps only what quantising reads. */
static void quantize(const zl_schema *s, const zl_schema_plan *p, void *state)
{
    int i, count = s->count;
    /* The count is read once: the stores below could alias the table. */
    for (i = 0; i < count; i++) {
        zl_plan_field tmp;
        if (p) {
            quantize_field(&p->field[i], state);
            continue;
        }
        prepare(&s->fields[i], &tmp, 0);
        quantize_field(&tmp, state);
    }
}

/* a + (b - a) * t, both ends and the result clamped to the range; both
 * ends clamped keep the lerp in int32, and zl_fx_lerp on raw values is
 * exactly an integer lerp, so INT and FX share it. */
static inline void lerp_field(const zl_plan_field *f, void *out, const void *a, const void *b, zl_fx t)
{
    int32_t va = to_i32(f->min + place_of(f, load(f, a)));
    int32_t vb = to_i32(f->min + place_of(f, load(f, b)));
    uint32_t r = (uint32_t)zl_fx_lerp(va, vb, t);
    store(f, out, f->min + place(r, f->min, f->span, 1));
}

static inline zl_fx arc_fraction(zl_fx t)
{
    return t < 0 ? 0 : t > ZL_FX_ONE ? ZL_FX_ONE : t;
}

static inline void arc_field(const zl_plan_field *f, void *out, const void *a, const void *b, zl_fx t)
{
    store(f, out, zl_angle_lerp((zl_angle)load(f, a), (zl_angle)load(f, b), t));
}

/* A discrete value holds from the moment it was sampled: a's until t
 * reaches ONE. */
static inline const void *step_source(const void *a, const void *b, zl_fx t)
{
    return t >= ZL_FX_ONE ? b : a;
}

/* Each field reads only its own bytes of a and b and writes only its own
 * of out, so out may alias either and the plan may take fields in any
 * order (its fields never share bytes). */
static void interpolate(const zl_schema *s, const zl_schema_plan *p, void *out, const void *a,
                        const void *b, zl_fx t)
{
    zl_plan_field tmp;
    int i;
    if (p) {
        const uint8_t *o = p->order, *lin_end = o + p->linear, *arc_end = lin_end + p->arc;
        const zl_plan_run *r, *end;
        const void *from = step_source(a, b, t);
        for (; o < lin_end; o++)
            lerp_field(&p->field[*o], out, a, b, t);
        for (t = arc_fraction(t); o < arc_end; o++)
            arc_field(&p->field[*o], out, a, b, t);
        for (r = runs_of(p, 3, &end); r < end; r++)
            copy_bytes(out, from, r->offset, r->len);
        return;
    }
    for (i = 0; i < s->count; i++) {
        const zl_plan_field *f = field_at(s, NULL, i, &tmp, 0);
        switch (f->op & ZL_INTERP_MASK) {
        case ZL_INTERP_LINEAR:
            lerp_field(f, out, a, b, t);
            break;
        case ZL_INTERP_ARC:
            arc_field(f, out, a, b, arc_fraction(t));
            break;
        default:
            copy_bytes(out, step_source(a, b, t), f->offset, f->size);
            break;
        }
    }
}

static void write_value(const zl_plan_field *f, zl_bitwriter *w, uint32_t base_code, uint32_t code)
{
    if (f->sel & ZL_DELTA)
        zl_bitwriter_delta(w, to_i32(code - base_code)); /* wraps mod 2^32 */
    else
        zl_bitwriter_bits(w, code, f->width);
}

/* Sets ZL_ERR_MALFORMED unless an earlier error already stuck. */
static void malformed(zl_bitreader *r)
{
    if (r->error == ZL_OK)
        r->error = ZL_ERR_MALFORMED;
}

static uint32_t read_value(const zl_plan_field *f, zl_bitreader *r, uint32_t base_code)
{
    uint32_t code;
    if (f->sel & ZL_DELTA)
        code = base_code + (uint32_t)zl_bitreader_delta(r);
    else
        code = zl_bitreader_bits(r, f->width);
    if (code > max_code(f)) {
        malformed(r);
        return 0;
    }
    return code;
}

static int write_delta(const zl_schema *s, const zl_schema_plan *p, zl_bitwriter *w,
                       const void *base, const void *state, int which)
{
    zl_plan_field tmp;
    uint32_t start = zl_bitwriter_bits_used(w);
    int last = -1;
    int i;
    ZL_ASSERT(w && state && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    for (i = 0; i < s->count; i++) {
        const zl_plan_field *f = field_at(s, p, i, &tmp, 1);
        if ((f->sel & SEL(which)) && code_of(f, state) != code_of(f, base))
            last = i;
    }
    zl_bitwriter_bool(w, last >= 0);
    if (last >= 0) {
        zl_bitwriter_bits(w, (uint32_t)last, zl_bits_required(s->count - 1u));
        for (i = 0; i <= last; i++) {
            const zl_plan_field *f = field_at(s, p, i, &tmp, 1);
            uint32_t code, base_code;
            if (!(f->sel & SEL(which)))
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

static int read_delta(const zl_schema *s, const zl_schema_plan *p, zl_bitreader *r,
                      const void *base, void *out, int which)
{
    zl_plan_field tmp;
    int last = -1;
    int i;
    ZL_ASSERT(r && out && (which == ZL_SCHEMA_WIRE || which == ZL_SCHEMA_SHARED));
    if (zl_bitreader_bool(r)) {
        uint32_t index = zl_bitreader_bits(r, zl_bits_required(s->count - 1u));
        /* The last changed field must exist and be one that is sent. */
        if (index >= s->count || !(field_at(s, p, (int)index, &tmp, 1)->sel & SEL(which)))
            malformed(r);
        else
            last = (int)index;
    }
    for (i = 0; i < s->count && r->error == ZL_OK; i++) {
        const zl_plan_field *f = field_at(s, p, i, &tmp, 1);
        uint32_t code;
        if (!(f->sel & SEL(which)))
            continue;
        code = code_of(f, base);
        if (i == last || (i < last && zl_bitreader_bool(r)))
            code = read_value(f, r, code);
        store(f, out, decode(f, code));
    }
    return r->error;
}

void zl_schema_copy(const zl_schema *s, void *dst, const void *src, int which)
{
    ZL_ASSERT(s && dst && src);
    copy(s, NULL, dst, src, which);
}

int zl_schema_first_diff(const zl_schema *s, const void *a, const void *b, int which)
{
    ZL_ASSERT(s && a && b);
    return first_diff(s, NULL, a, b, which);
}

int zl_schema_equal(const zl_schema *s, const void *a, const void *b, int which)
{
    return zl_schema_first_diff(s, a, b, which) == s->count;
}

uint32_t zl_schema_hash(const zl_schema *s, const void *state, int which, uint32_t hash)
{
    ZL_ASSERT(s && state);
    return hash_of(s, NULL, state, which, hash);
}

void zl_schema_quantize(const zl_schema *s, void *state)
{
    ZL_ASSERT(s && state);
    quantize(s, NULL, state);
}

void zl_schema_interpolate(const zl_schema *s, void *out, const void *a, const void *b, zl_fx t)
{
    ZL_ASSERT(s && out && a && b);
    interpolate(s, NULL, out, a, b, t);
}

int zl_schema_write_delta(const zl_schema *s, zl_bitwriter *w, const void *base,
                          const void *state, int which)
{
    ZL_ASSERT(s);
    return write_delta(s, NULL, w, base, state, which);
}

int zl_schema_read_delta(const zl_schema *s, zl_bitreader *r, const void *base, void *out,
                         int which)
{
    ZL_ASSERT(s);
    return read_delta(s, NULL, r, base, out, which);
}

/* ---- Plans ---- */

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

/* Appends to p->run the bytes of the fields `in` accepts (1 << which, or
 * the STEP rule for `which` 3), in memory order, adjacent ones merged;
 * ends list `which`. 0 when the runs do not fit. */
static int add_runs(zl_schema_plan *p, int which)
{
    uint8_t idx[ZL_SCHEMA_PLAN_FIELDS];
    int n = 0, i, j, at = which ? p->runs[which - 1] : 0;
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
        if (at > (which ? p->runs[which - 1] : 0) &&
            p->run[at - 1].offset + p->run[at - 1].len == f->offset) {
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
        prepare(&s->fields[i], &p->field[i], 1);
        if (quantize_keeps(&p->field[i]))
            p->field[i].op = (uint8_t)(p->field[i].op | OP_QUANT_SAME);
        if (s->fields[i].interp == ZL_INTERP_LINEAR)
            p->order[p->linear++] = (uint8_t)i;
    }
    for (i = 0; i < s->count; i++)
        if (s->fields[i].interp == ZL_INTERP_ARC)
            p->order[p->linear + p->arc++] = (uint8_t)i;
    for (which = 0; which < 4; which++)
        if (!add_runs(p, which))
            return ZL_ERR_FULL;
    p->planned = 1;
    return ZL_OK;
}

void zl_schema_plan_copy(const zl_schema_plan *p, void *dst, const void *src, int which)
{
    ZL_ASSERT(p && dst && src);
    copy(p->schema, usable(p), dst, src, which);
}

int zl_schema_plan_first_diff(const zl_schema_plan *p, const void *a, const void *b, int which)
{
    ZL_ASSERT(p && a && b);
    return first_diff(p->schema, usable(p), a, b, which);
}

int zl_schema_plan_equal(const zl_schema_plan *p, const void *a, const void *b, int which)
{
    return zl_schema_plan_first_diff(p, a, b, which) == p->schema->count;
}

uint32_t zl_schema_plan_hash(const zl_schema_plan *p, const void *state, int which, uint32_t hash)
{
    ZL_ASSERT(p && state);
    return hash_of(p->schema, usable(p), state, which, hash);
}

void zl_schema_plan_quantize(const zl_schema_plan *p, void *state)
{
    ZL_ASSERT(p && state);
    quantize(p->schema, usable(p), state);
}

void zl_schema_plan_interpolate(const zl_schema_plan *p, void *out, const void *a, const void *b,
                                zl_fx t)
{
    ZL_ASSERT(p && out && a && b);
    interpolate(p->schema, usable(p), out, a, b, t);
}

int zl_schema_plan_write_delta(const zl_schema_plan *p, zl_bitwriter *w, const void *base,
                               const void *state, int which)
{
    ZL_ASSERT(p);
    return write_delta(p->schema, usable(p), w, base, state, which);
}

int zl_schema_plan_read_delta(const zl_schema_plan *p, zl_bitreader *r, const void *base,
                              void *out, int which)
{
    ZL_ASSERT(p);
    return read_delta(p->schema, usable(p), r, base, out, which);
}
