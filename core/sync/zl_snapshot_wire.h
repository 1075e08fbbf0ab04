/* zl_snapshot_wire.h - private to zl_snapshot*.c: the entity section's wire
 * format, shared by the writer (zl_snapshot.c) and the reader (zl_snapshot_read.c). */
#ifndef ZL_SNAPSHOT_WIRE_H
#define ZL_SNAPSHOT_WIRE_H

#include "zl_snapshot.h"

/* Wire format of the entity section, least significant bit first (the
 * message header says whether it has a base):
 *   [base_age:AGE_BITS older_age's code against it] count's code
 *   against the base frame's entities (count_code; 0 without a base),
 *   then count entries in ascending entity number, each: head, kind, state.
 * base_age = tick - base tick (1 .. ZL_SNAPSHOT_WORLD_TICKS - 1);
 * older_age = base tick - the older frame's tick, 0 for none, the two ages
 * together below older_limit(): an update of an entity the older
 * frame holds is coded against its base state with the ZL_EXTRAPOLATE
 * fields extrapolated from there (zl_schema_extrapolate). The gap
 * is the number of entity numbers skipped since the previous entry, in
 * the Golomb code below that escapes to ENTITY_BITS bits of gap.
 * The kind exists only for an entity present in the base frame (stream
 * order): 1 changed against its base state, whose state code leaves out
 * its changed bit; 01 the same; 001 against the zero state (its base
 * state, or the older one extrapolation needs, is too old); 000 it leaves.
 * The head: 1 for the next number (a gap of 0) when the entity enters or
 * its kind is 1, which the head then stands for (the common entry, a
 * moving player, in 1 bit); 01 for the next number of another kind, whose
 * leading 0 is left out; 00 then the code of the gap less 1.
 * An entity absent from the base enters, against the zero state. The state
 * is zl_schema_write_delta's code. Entities of the base not listed are
 * unchanged: the client keeps them at no cost. */


static inline int bit_get(const uint8_t *map, uint32_t i) { return (map[i >> 3] >> (i & 7u)) & 1; }
static inline void bit_set(uint8_t *map, uint32_t i)
{
    map[i >> 3] = (uint8_t)(map[i >> 3] | (1u << (i & 7u)));
}
static inline void bit_clear(uint8_t *map, uint32_t i)
{
    map[i >> 3] = (uint8_t)(map[i >> 3] & ~(1u << (i & 7u)));
}

/* a - b for wrapping ticks, as a signed count (ticks wrap after 2^32). */
static inline int32_t tick_diff(uint32_t a, uint32_t b)
{
    uint32_t d = a - b;
    return d < 0x80000000u ? (int32_t)d : -(int32_t)(0xFFFFFFFFu - d) - 1;
}

static inline const zl_schema *schema_of(const zl_snapshot_layout *layout, uint32_t entity)
{
    return entity < layout->players ? layout->player_schema : layout->entity_schema;
}

/* zl_snapshot_client_holds, inline for the event section, which asks it
 * for every event's source. */
static inline int client_holds(const zl_snapshot_client *c, uint16_t entity)
{
    const zl_snapshot_record *rec = &c->record[(c->written - 1u) % ZL_SNAPSHOT_SENT];
    if (!bit_get(rec->held, entity))
        return ZL_EVENT_HOLDS_NONE;
    return rec->age[entity] == 0 ? ZL_EVENT_HOLDS_SAME : ZL_EVENT_HOLDS_OTHER;
}

#define GOLOMB_ESCAPE 5u

/* The fields an entity's entry carries: all wire fields for the client's
 * own entity, the shared ones (no ZL_OWNER fields) for everyone else's. */
static inline int fields_for(uint32_t entity, uint32_t own_entity)
{
    return entity == own_entity ? ZL_SCHEMA_WIRE : ZL_SCHEMA_SHARED;
}

/* Index of the lowest and the highest set bit of x != 0: one instruction
 * each where the compiler offers it (Cortex-M3 has CLZ and RBIT). */
static inline unsigned lowest_bit(uint32_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(x);
#else
    static const uint8_t debruijn[32] = {0,  1,  28, 2,  29, 14, 24, 3,  30, 22, 20,
                                         15, 25, 17, 4,  8,  31, 27, 13, 23, 21, 19,
                                         16, 7,  26, 12, 18, 6,  11, 5,  10, 9};
    return debruijn[((x & (0u - x)) * 0x077CB531u) >> 27];
#endif
}

static inline unsigned highest_bit(uint32_t x)
{
    return zl_bits_required(x) - 1u;
}

/* Widths of constants, worked out while compiling (zl_bits_required is
 * inline): the gap costs ask for entity_bits on every escape. */
static inline unsigned age_bits(void) { return zl_bits_required(ZL_SNAPSHOT_WORLD_TICKS - 1u); }
/* A base age and an older age add up to less than this: inside the world
 * history and zl_schema_extrapolate's range of ticks. */
static inline uint32_t older_limit(void)
{
    return ZL_SNAPSHOT_WORLD_TICKS < 64u ? ZL_SNAPSHOT_WORLD_TICKS : 64u;
}
static inline unsigned count_bits(void) { return zl_bits_required(ZL_MAX_ENTITIES); }
static inline unsigned entity_bits(void) { return zl_bits_required(ZL_MAX_ENTITIES - 1u); }

/* The exponential-Golomb code of v: n zeros, a one, n bits w, for
 * v = 2^n - 1 + w (n < GOLOMB_ESCAPE: 0 costs 1 bit, 1..2 cost 3, 3..6
 * cost 5, 7..14 cost 7, 15..30 cost 9); GOLOMB_ESCAPE zeros escape to
 * `wide` bits of v. golomb_class gives the n, GOLOMB_ESCAPE for the escape. */
static inline unsigned golomb_class(uint32_t v)
{
    unsigned n = highest_bit(v + 1u);
    return n < GOLOMB_ESCAPE ? n : GOLOMB_ESCAPE;
}

static inline unsigned golomb_cost(uint32_t v, unsigned wide)
{
    unsigned n = golomb_class(v);
    return n == GOLOMB_ESCAPE ? GOLOMB_ESCAPE + wide : 2u * n + 1u;
}

/* Writes v's code in one write (n zeros, a one, then n bits, least
 * significant first, are one number). Returns its bits. */
static inline unsigned write_golomb(zl_bitwriter *w, uint32_t v, unsigned wide)
{
    unsigned n = golomb_class(v);
    if (n == GOLOMB_ESCAPE) {
        zl_bitwriter_bits(w, v << GOLOMB_ESCAPE, GOLOMB_ESCAPE + wide);
        return GOLOMB_ESCAPE + wide;
    }
    zl_bitwriter_bits(w, 1u << n | (v - ((1u << n) - 1u)) << (n + 1u), 2u * n + 1u);
    return 2u * n + 1u;
}

static inline uint32_t read_golomb(zl_bitreader *r, unsigned wide)
{
    unsigned n = 0;
    while (n < GOLOMB_ESCAPE && !zl_bitreader_bool(r))
        n++;
    if (n == GOLOMB_ESCAPE)
        return zl_bitreader_bits(r, wide);
    return (1u << n) - 1u + zl_bitreader_bits(r, n);
}

static inline unsigned gap_cost(uint32_t gap) { return golomb_cost(gap, entity_bits()); }
static inline unsigned write_gap(zl_bitwriter *w, uint32_t gap)
{
    return write_golomb(w, gap, entity_bits());
}
static inline uint32_t read_gap(zl_bitreader *r) { return read_golomb(r, entity_bits()); }

/* The count of entries against the base frame's count of entities: the
 * count is usually the base's, less the few entities that did not change
 * (no entry), more rarely more (entities entering). Its code is the
 * Golomb code of the difference folded to 0, 1, 2, ... for 0, one
 * fewer, one more, two fewer, ...; its escape takes count_bits() + 1 bits,
 * room for the largest fold, 2 * ZL_MAX_ENTITIES (every entity entering a
 * base of none). */
static inline unsigned count_wide(void) { return count_bits() + 1u; }
static inline uint32_t count_code(uint32_t count, uint32_t base_count)
{
    return count <= base_count ? 2u * (base_count - count) - (count < base_count)
                               : 2u * (count - base_count);
}
/* The count count_code folded from base_count, or a number above
 * ZL_MAX_ENTITIES (malformed) for a code no count makes. */
static inline uint32_t count_of(uint32_t code, uint32_t base_count)
{
    return code & 1u ? base_count - (code + 1u) / 2u : base_count + code / 2u;
}

/* The older age against the base age: the writer names the frame whose
 * distance before the base is nearest the base age, so it is that age
 * (1 bit: 1), or one off it when snapshots are sparser than ticks (3
 * bits: 0, 1, then 0 for one less, 1 for one more), else 0, 0 and
 * age_bits() bits of it (0 for none). older_cost gives the bits,
 * write_older writes them and returns how many. */
static inline unsigned older_cost(uint32_t older, uint32_t base_age)
{
    return older == base_age ? 1u
           : older + 1u == base_age || older == base_age + 1u ? 3u
                                                             : 2u + age_bits();
}

static inline unsigned write_older(zl_bitwriter *w, uint32_t older, uint32_t base_age)
{
    unsigned n = older_cost(older, base_age);
    zl_bitwriter_bits(w, n == 1u ? 1u : n == 3u ? 2u | (uint32_t)(older > base_age) << 2 : older << 2,
                      n);
    return n;
}

static inline uint32_t read_older(zl_bitreader *r, uint32_t base_age)
{
    if (zl_bitreader_bool(r))
        return base_age;
    if (zl_bitreader_bool(r))
        return zl_bitreader_bool(r) ? base_age + 1u : base_age - 1u;
    return zl_bitreader_bits(r, age_bits());
}

/* The bits an entry takes beyond its body (kind and state code) after a
 * gap: its head less the kind bit the head stands for; `joint` 1 for an
 * update that changed (kind 1). */
static inline unsigned head_cost(uint32_t gap, int joint)
{
    return gap == 0 ? (unsigned)!joint : 2u + gap_cost(gap - 1u);
}

#endif
