/* zl_schema_wire.h - private to zl_schema*.c: what the field walk
 * (zl_schema.c) and the plan (zl_schema_plan.c) share: a field's selection,
 * storage and code range, and the delta code's pieces on the wire. */
#ifndef ZL_SCHEMA_WIRE_H
#define ZL_SCHEMA_WIRE_H

#include <string.h>

#include "zl_int.h"
#include "zl_schema.h"

/* For the hot loops' helpers: GCC keeps one out-of-line copy of a function
 * called from two places, or of some length, unless told. */
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

static inline int selected(const zl_field *f, int which)
{
    if (which == ZL_SCHEMA_ALL)
        return 1;
    if (f->flags & ZL_LOCAL)
        return 0;
    return which == ZL_SCHEMA_WIRE || (f->flags & ZL_OWNER) == 0;
}

static inline int is_signed(const zl_field *f)
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

/* Shift from a raw value to its wire step (FX and ANGLE). */
static inline unsigned step_shift(const zl_field *f)
{
    return 16u - f->bits;
}

static inline uint32_t low_mask(unsigned bits)
{
    return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
}

/* Wire codes run from 0 to max_code; a code is a value relative to the
 * bottom of its range, counted in steps. */
static inline uint32_t max_code(const zl_field *f)
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

/* ---- Differences ----
 * A changed FX, ANGLE or INT field (not ZL_DELTA) travels as the signed
 * difference d from its base's code, folded to u = 2d (d >= 0) or
 * -2d - 1, in an exponential-Golomb code of parameter k: class j (j ones,
 * then a 0) holds the u from 2^k (2^j - 1) on, 2^(k+j) of them, in j + k
 * bits, so a value costs 2j + 1 + k bits. Movement between two snapshots
 * is far smaller than a field's range, and against a moved or extrapolated
 * base small far more often than large: the small differences take the
 * short words. k follows what both ends have just seen: a state's
 * differences grow and shrink together (a turn or a landing shows in each
 * of a player's coordinates), so k is the mean of a quarter of the
 * field's width (its prior) and the size in bits of the previous value's
 * u in the same state's code (the width after a whole code); the first
 * value takes the prior alone. A field that is not extrapolated and moved
 * between the older state and the base (a moved set's, 10.2) moves next
 * about as it just moved: its k is the size of that step's u less 1 (at
 * most 20), whatever came before. A difference whose class would be the
 * eighth or whose word would cost the width plus 8 bits goes whole
 * instead: 8 ones, then the code in the field's width. So a value never
 * costs more than its width plus 8 bits. A state coded against nothing
 * (no base) has no differences to take: each of its values is its code in
 * the field's width, with no class. FLAGS are sent whole: their bits are
 * not magnitudes. Angles differ the short way round a turn. */
#define VALUE_CLASSES 8u
#define VALUE_NONE 0xFFu  /* no value yet in this state's code */
#define VALUE_ALONE 0xFEu /* a state coded against nothing: every value whole */
#define VALUE_K_MAX 20u   /* so a class's j + k bits stay below 32 */

/* The code's parameter for a field of `width` bits after a previous
 * value of `size` bits (VALUE_NONE for none), the field's step `step`
 * bits (zl_moved; 0 for none). */
static inline unsigned value_k(unsigned width, unsigned size, unsigned step)
{
    unsigned prior = width / 4u;
    if (step != 0)
        return step > VALUE_K_MAX ? VALUE_K_MAX : step - 1u;
    return size == VALUE_NONE ? prior : (prior + size) / 2u;
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

/* d folded: 2d (d >= 0) or -2d - 1, as uint32. */
static inline uint32_t folded(uint32_t d)
{
    return (d << 1) ^ (0u - (d >> 31));
}

/* The size of a moved field's step from the older code o to the base's
 * code b (zl_moved): the width of its folded difference, 1..32 (b != o). */
static inline unsigned step_size(uint32_t b, uint32_t o, unsigned width, int wraps)
{
    return zl_bits_required(folded(difference(b, o, width, wraps)));
}

/* The code `ahead` ticks after b on the line through o (`behind` ticks
 * before b), codes running 0..max, width bits (wrapping ones all 2^width):
 * |b - o| < 2^24 and ahead < 64, so twice their product fits 32 bits
 * unsigned. */
static inline uint32_t extrapolated(uint32_t b, uint32_t o, uint32_t ahead, uint32_t behind,
                                    uint32_t max, unsigned width, int wraps)
{
    uint32_t d = difference(b, o, width, wraps);
    int negative = zl_to_i32(d) < 0;
    uint32_t m = negative ? 0u - d : d;
    uint32_t q = (2u * m * ahead + behind) / (2u * behind);
    int64_t p = (int64_t)b + (negative ? -(int64_t)q : (int64_t)q);
    if (wraps)
        return (uint32_t)p & max;
    return (uint32_t)zl_clamp64(p, 0, max);
}

/* A delta's bits on their way to the writer: gathered in a word, so its
 * many short pieces (a flag, a class, a small difference) reach the writer
 * 32 bits at a time rather than in a call each. The bits are the same. */
typedef struct delta_out {
    zl_bitwriter *w;
    uint32_t bits;
    unsigned count; /* bits gathered, below 32 between puts */
    unsigned size;  /* the previous value's size (value_k), VALUE_NONE for none */
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

/* `alone`: the state is coded against nothing. */
static inline void begin(delta_out *o, zl_bitwriter *w, int alone)
{
    o->w = w;
    o->bits = 0;
    o->count = 0;
    o->size = alone ? VALUE_ALONE : VALUE_NONE;
}

/* Hands the writer what is gathered. */
static inline void flush(delta_out *o)
{
    zl_bitwriter_bits(o->w, o->bits, o->count);
    o->bits = 0;
    o->count = 0;
}

/* A ZL_DELTA field's difference, in the writer's own coding. */
static inline void put_delta(delta_out *o, uint32_t base_code, uint32_t code)
{
    flush(o);
    zl_bitwriter_delta(o->w, zl_to_i32(code - base_code)); /* wraps mod 2^32 */
}

/* `step`: as value_k's. */
static inline void write_change(delta_out *o, unsigned width, uint32_t base, uint32_t code,
                                int wraps, unsigned step)
{
    uint32_t d = difference(code, base, width, wraps);
    uint32_t u = folded(d);
    unsigned k, n, j, top;
    if (o->size == VALUE_ALONE) {
        put(o, code, width);
        return;
    }
    k = value_k(width, o->size, step);
    j = zl_bits_required((u >> k) + 1u) - 1u;
    n = j + k; /* below 32: k is at most VALUE_K_MAX */
    if (j >= VALUE_CLASSES || 2u * j + 1u + k >= width + VALUE_CLASSES) {
        put(o, low_mask(VALUE_CLASSES), VALUE_CLASSES);
        put(o, code, width);
        o->size = width;
        return;
    }
    top = 1u << n;
    put(o, low_mask(j), j + 1u);
    if (n > 0)
        put(o, (u + (1u << k)) - top, n);
    o->size = zl_bits_required(u);
}

/* A delta's reader with its position and bounds in locals: the stores
 * to the state being read, which the compiler must assume may reach the
 * reader, then do not send them back to memory between reads. The reads
 * are the reader's own (zl_bits.h): inline while whole bytes of the buffer
 * hold the bits, else, and for every read once an error stuck (bits is
 * then 0), through the reader. in_end hands the reader its position. */
typedef struct delta_in {
    zl_bitreader *r;
    const uint8_t *data;
    uint32_t pos;
    uint32_t bits; /* the reader's size in bits; 0 once an error stuck */
    unsigned size; /* as delta_out's */
} delta_in;

static inline void in_begin(delta_in *in, zl_bitreader *r, int alone)
{
    in->r = r;
    in->data = r->data;
    in->pos = r->bit_pos;
    in->bits = r->error == ZL_OK ? r->size_bits : 0u;
    in->size = alone ? VALUE_ALONE : VALUE_NONE;
}

static inline void in_end(const delta_in *in)
{
    in->r->bit_pos = in->pos;
}

/* After a read through the reader: its position, and no more inline
 * reads once it failed. */
static inline void in_sync(delta_in *in)
{
    in->pos = in->r->bit_pos;
    if (in->r->error != ZL_OK)
        in->bits = 0;
}

static inline uint32_t in_bits_any(delta_in *in, unsigned n)
{
    uint32_t v;
    in->r->bit_pos = in->pos;
    v = zl_bitreader_bits_any(in->r, n);
    in_sync(in);
    return v;
}

/* zl_bitreader_bits. */
static inline uint32_t in_bits(delta_in *in, unsigned n)
{
    uint32_t pos = in->pos, idx = pos >> 3;
    if (n - 1u < 25u && idx + 4u <= in->bits >> 3) {
        in->pos = pos + n;
        return (zl_get_le32(in->data + idx) >> (pos & 7u)) & ((1u << n) - 1u);
    }
    return in_bits_any(in, n);
}

/* zl_bitreader_bool. */
static inline int in_bool(delta_in *in)
{
    uint32_t pos = in->pos;
    if (pos >= in->bits)
        return (int)in_bits_any(in, 1);
    in->pos = pos + 1u;
    return (int)(((uint32_t)in->data[pos >> 3] >> (pos & 7u)) & 1u);
}

/* zl_bitreader_delta. */
static inline int32_t in_delta(delta_in *in)
{
    int32_t v;
    in->r->bit_pos = in->pos;
    v = zl_bitreader_delta(in->r);
    in_sync(in);
    return v;
}

/* Sets ZL_ERR_MALFORMED unless an earlier error already stuck. */
static inline void in_malformed(delta_in *in)
{
    if (in->r->error == ZL_OK)
        in->r->error = ZL_ERR_MALFORMED;
    in->bits = 0;
}

/* The class j and value u of a change word in one read, when whole bytes
 * of the buffer hold the 25 bits from pos and the word fits them: the
 * class's 1 bits counted at once (the lowest 0 bit of the window, found
 * with the reader's count of leading zeros). 0 when it cannot: the caller
 * reads bit by bit. */
static inline int read_change_word(delta_in *in, unsigned k, uint32_t *u)
{
    uint32_t pos = in->pos, idx = pos >> 3, window, zeros;
    unsigned j, n;
    if (idx + 4u > in->bits >> 3)
        return 0;
    window = zl_get_le32(in->data + idx) >> (pos & 7u);
    zeros = ~window; /* never 0: the window's top bits are 0 */
    j = zl_bits_required(zeros & (0u - zeros)) - 1u;
    n = j + k;
    if (j >= VALUE_CLASSES || j + 1u + n > 25u)
        return 0;
    *u = (((window >> (j + 1u)) & ((1u << n) - 1u)) | (1u << n)) - (1u << k);
    in->pos = pos + j + 1u + n;
    return 1;
}

/* The code write_change sent, not yet checked against the field's range.
 * (u >> 1) ^ -(u & 1) unfolds u back to d in unsigned arithmetic. */
static inline uint32_t read_change(delta_in *in, unsigned width, uint32_t base, int wraps,
                                   unsigned step)
{
    unsigned k, j = 0, n;
    uint32_t u, code;
    if (in->size == VALUE_ALONE)
        return in_bits(in, width);
    k = value_k(width, in->size, step);
    if (!read_change_word(in, k, &u)) {
        while (j < VALUE_CLASSES && in_bool(in))
            j++;
        if (j == VALUE_CLASSES) {
            in->size = width;
            return in_bits(in, width);
        }
        n = j + k;
        u = ((n > 0 ? in_bits(in, n) : 0u) | (1u << n)) - (1u << k);
    }
    in->size = zl_bits_required(u);
    code = base + ((u >> 1) ^ (0u - (u & 1u)));
    return wraps ? code & low_mask(width) : code;
}

/* The place L of the last changed field among the `sent` fields (10.2),
 * in a truncated binary code: with w = width(sent - 1) and u = 2^w - sent,
 * a place below u is w - 1 bits; another is u + (L - u) / 2 in w - 1 bits
 * and then the low bit of L - u. A selection of one field sends nothing. */
static inline void put_last(delta_out *o, unsigned last, unsigned sent)
{
    unsigned w = zl_bits_required(sent - 1u), u = (1u << w) - sent;
    if (sent <= 1u)
        return;
    if (last < u) {
        put(o, last, w - 1u);
        return;
    }
    put(o, u + (last - u) / 2u, w - 1u);
    put(o, (last - u) & 1u, 1);
}

/* A changed state's code against a base whose moved set (the places
 * among the first 32 selected fields whose codes differ between the base
 * and an older state both ends hold; zl_schema_moved) is not empty starts
 * with a bit: 1 when exactly the moved fields changed, whose values alone
 * follow; 0 for the place L and the changed bits as ever. Returns 1 when
 * the code may take the 1: `changed` the changed places, `last` the
 * highest of them. */
static inline int moved_alike(uint32_t moved, uint32_t changed, int last)
{
    return moved != 0 && last < 32 && changed == moved;
}

/* A delta's header: the place of the last changed field among the `sent`
 * fields of the selection, or -1 when nothing changed or the place is out
 * of range (then malformed). `known`: the code of a state taken as
 * changed (ZL_SCHEMA_CHANGED), whose leading changed bit is left out. */
static inline int read_last(delta_in *in, unsigned sent, int known)
{
    uint32_t index, w, u;
    if (!known && !in_bool(in))
        return -1;
    if (sent <= 1u) /* one place, none sent; none at all is malformed */
        index = sent == 1u ? 0u : 1u;
    else {
        w = zl_bits_required(sent - 1u);
        u = (1u << w) - sent;
        index = in_bits(in, w - 1u);
        if (index >= u)
            index = u + 2u * (index - u) + (uint32_t)in_bool(in);
    }
    if (index < sent)
        return (int)index;
    in_malformed(in);
    return -1;
}

/* How many fields `which` sends. */
static inline unsigned sent_count(const zl_schema *s, int which)
{
    unsigned n = 0;
    uint16_t i;
    for (i = 0; i < s->count; i++)
        n += (unsigned)selected(&s->fields[i], which);
    return n;
}

#endif
