/* zl_bits.h - bit-packed writer and reader over caller-owned buffers.
 * Every read is bounds-checked: hostile bytes set a sticky error, never crash.
 * Not part of the API (docs/ARCHITECTURE.md): public because the endpoints'
 * structs and the schema's delta functions use its writer and reader; an
 * application calls none of it. */
#ifndef ZL_BITS_H
#define ZL_BITS_H

#include "zl_bytes.h"
#include "zl_fixed.h"

ZL_BEGIN_DECLS

/* Bits are packed least-significant first into little-endian 32-bit words,
 * so the byte stream is identical on every host byte order: bit i of the
 * stream is bit (i % 8) of byte i / 8. Both structs are private; use the
 * functions. Argument errors (nbits > 32, min > max, frac_bits > 16, a NULL
 * buffer with a non-zero size) are programmer errors caught by ZL_ASSERT. */

typedef struct zl_bitwriter {
    uint8_t *data;
    uint32_t capacity_bits;
    uint32_t bit_pos;
    int error; /* sticky: ZL_OK or ZL_ERR_OVERFLOW */
} zl_bitwriter;

typedef struct zl_bitreader {
    const uint8_t *data;
    uint32_t size_bits;
    uint32_t bit_pos;
    int error; /* sticky: ZL_OK, ZL_ERR_OVERFLOW (read past end) or
                  ZL_ERR_MALFORMED (a value outside its declared range) */
} zl_bitreader;

/* Number of bits needed to hold any value in [0, range]; 0 for range 0.
 * One instruction where the compiler offers a count of leading zeros
 * (the Cortex-M3 has CLZ); else five halvings of the search. */
static inline unsigned zl_bits_required(uint32_t range)
{
#if defined(__GNUC__)
    return range ? 32u - (unsigned)__builtin_clz(range) : 0u;
#else
    unsigned n = 0, half;
    for (half = 16; half > 0; half /= 2u) {
        if (range >> half) {
            n += half;
            range >>= half;
        }
    }
    return n + range;
#endif
}

/* Writer. A write that does not fit sets error to ZL_ERR_OVERFLOW and writes
 * nothing more (not even part of that write); every later write is ignored. */
/* Starts writing at the first byte of buf (cap_bytes long, owned by the
 * caller, need not be zeroed). */
void zl_bitwriter_init(zl_bitwriter *w, void *buf, size_t cap_bytes);
/* The low nbits (0..32) of value. Higher bits of value must be zero. */
void zl_bitwriter_bits(zl_bitwriter *w, uint32_t value, unsigned nbits);
/* All 64 bits of value, low half first. */
void zl_bitwriter_bits64(zl_bitwriter *w, uint64_t value);
/* One bit: 1 for any non-zero flag. */
void zl_bitwriter_bool(zl_bitwriter *w, int flag);
/* An integer known to lie in [min, max], in zl_bits_required(max - min) bits
 * (0 bits when min == max, 32 for the full int32 range).
 * A value outside the range is a programmer error (ZL_ASSERT). */
void zl_bitwriter_ranged(zl_bitwriter *w, int32_t value, int32_t min, int32_t max);
/* A signed difference with a variable-length code: small magnitudes are
 * cheap, any int32 is representable. Cost in bits: 0 -> 1; -8..7 -> 5;
 * -128..127 -> 15; -2048..2047 -> 19; -32768..32767 -> 23; else 39.
 * The layout is documented in zl_bits.c. */
void zl_bitwriter_delta(zl_bitwriter *w, int32_t delta);
/* A Q16.16 value in [min, max] quantised to a step of 2^-frac_bits units
 * (frac_bits 0..16), rounded to nearest (halves up). Values outside are
 * clamped. It costs zl_bits_required(q) bits, q being (max - min) in steps,
 * rounded to nearest: 32 bits for the full range at frac_bits 16. */
void zl_bitwriter_fx(zl_bitwriter *w, zl_fx value, zl_fx min, zl_fx max, unsigned frac_bits);
/* Raw bytes, after padding to a byte boundary. */
void zl_bitwriter_bytes(zl_bitwriter *w, const void *src, size_t len);
/* Zero bits up to the next byte boundary. */
void zl_bitwriter_align(zl_bitwriter *w);
/* Pads to a byte boundary and returns the number of bytes used, or the
 * sticky error if any write overflowed. */
int zl_bitwriter_finish(zl_bitwriter *w);
/* Bits written so far. */
uint32_t zl_bitwriter_bits_used(const zl_bitwriter *w);
/* Takes back the bits written after the first `bits` (at most
 * zl_bitwriter_bits_used): the next write goes there. A sticky error
 * stays. */
void zl_bitwriter_rewind(zl_bitwriter *w, uint32_t bits);
/* Appends the first nbits of another writer's stream (src, as that writer
 * laid it out from a byte boundary), so a code written once can be copied
 * into many packets. All or nothing: on overflow nothing is appended and the
 * sticky error is set. */
void zl_bitwriter_copy(zl_bitwriter *w, const uint8_t *src, uint32_t nbits);
/* zl_bitwriter_copy of the nbits that start at bit `first` of src's
 * stream, so a run of entries can be cut out of a longer stream. Only the
 * bytes holding those bits are read. */
void zl_bitwriter_copy_at(zl_bitwriter *w, const uint8_t *src, uint32_t first, uint32_t nbits);

/* Reader. A read past the end returns 0 (or min for ranged values), sets
 * error to ZL_ERR_OVERFLOW and never touches memory outside the buffer.
 * The first error sticks: from then on every read returns 0 (or min), reads
 * nothing, and bits_left is 0. */
/* Reads the size_bytes bytes at buf, owned by the caller, kept unchanged
 * until reading is done. Any size works, not only multiples of 4. */
void zl_bitreader_init(zl_bitreader *r, const void *buf, size_t size_bytes);
/* 64 bits written by zl_bitwriter_bits64; 0 on error. */
uint64_t zl_bitreader_bits64(zl_bitreader *r);
/* zl_bitreader_bits for any case; call that one. */
uint32_t zl_bitreader_bits_any(zl_bitreader *r, unsigned nbits);
/* The next nbits (0..32) as an unsigned value; 0 on error. Inline where
 * four whole bytes hold the bits (1..25 of them, no error so far): one
 * gather and a shift, the read every field and event makes; anything
 * else goes to zl_bitreader_bits_any. */
static inline uint32_t zl_bitreader_bits(zl_bitreader *r, unsigned nbits)
{
    uint32_t pos = r->bit_pos, idx = pos >> 3;
    if (r->error == ZL_OK && nbits - 1u < 25u && idx + 4u <= r->size_bits >> 3) {
        const uint8_t *d = r->data + idx;
        uint32_t value = zl_get_le32(d) >> (pos & 7u);
        r->bit_pos = pos + nbits;
        return value & ((1u << nbits) - 1u);
    }
    return zl_bitreader_bits_any(r, nbits);
}
/* One bit as 0 or 1; 0 on error. Inline: the most frequent read (a
 * changed bit per field, a flag per event), one byte and one bit. */
static inline int zl_bitreader_bool(zl_bitreader *r)
{
    uint32_t pos = r->bit_pos;
    if (r->error != ZL_OK || pos >= r->size_bits)
        return (int)zl_bitreader_bits_any(r, 1);
    r->bit_pos = pos + 1u;
    return (int)(((uint32_t)r->data[pos >> 3] >> (pos & 7u)) & 1u);
}
/* A value outside [min, max] on the wire sets ZL_ERR_MALFORMED and gives min. */
int32_t zl_bitreader_ranged(zl_bitreader *r, int32_t min, int32_t max);
/* Inverse of zl_bitwriter_delta; 0 on error. Every bit pattern decodes, so
 * the only error a delta can raise is ZL_ERR_OVERFLOW. */
int32_t zl_bitreader_delta(zl_bitreader *r);
/* Inverse of zl_bitwriter_fx: within half a step of the written value (after
 * clamping), and always inside [min, max]. Out-of-range codes set
 * ZL_ERR_MALFORMED and give min. */
zl_fx zl_bitreader_fx(zl_bitreader *r, zl_fx min, zl_fx max, unsigned frac_bits);
/* Copies len bytes after aligning; on overflow or after an earlier error
 * dst is zero-filled. */
void zl_bitreader_bytes(zl_bitreader *r, void *dst, size_t len);
/* Skips to the next byte boundary (never fails: the size is whole bytes). */
void zl_bitreader_align(zl_bitreader *r);
/* Bits not yet read (0 once any error is set). */
uint32_t zl_bitreader_bits_left(const zl_bitreader *r);

ZL_END_DECLS

#endif
