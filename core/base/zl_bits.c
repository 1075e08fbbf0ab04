/* zl_bits.c - the bit writer and reader: LSB-first packing done byte by byte,
 * with sticky errors so a caller checks once per message, not once per field. */
#include "zl_bits.h"

#include <string.h>

#include "zl_bytes.h"
#include "zl_int.h"

/* Positions are counted in uint32_t bits, so a buffer is used only up to
 * this many bytes (512 MiB, far beyond any datagram). A multiple of 8 bits
 * means padding to a byte boundary always fits. */
#define MAX_BYTES (UINT32_MAX / 8u)

/* The delta code. A signed d is folded to an unsigned z by zigzag
 * (0, -1, 1, -2, 2 ... become 0, 1, 2, 3, 4 ...), so small magnitudes of
 * either sign get short codes and INT32_MIN is simply z = 2^32 - 1.
 * Fields are written least significant bit first, like every write:
 *   0                              z = 0                        1 bit
 *   1, f:4 with f != 0             z = f     (-8 <= d <= 7)     5 bits
 *   1, 0000, c:2, z:W[c]           W = 8, 12, 16, 32       7 + W bits
 * so -128..127 costs 15 bits, -2048..2047 19, -32768..32767 23 and any
 * other int32 39. The writer picks the narrowest class; the reader accepts
 * every pattern (each decodes to some int32), so the code can be cut short
 * but never malformed. */
static const uint8_t delta_width[4] = {8, 12, 16, 32};

static uint32_t bits_of(size_t bytes)
{
    return bytes > MAX_BYTES ? MAX_BYTES * 8u : (uint32_t)bytes * 8u;
}

/* v / 2^shift rounded to nearest, halves up. Adding the bit just below the
 * cut instead of 2^(shift-1) first cannot overflow 32 bits. */
static uint32_t round_shift(uint32_t v, unsigned shift)
{
    return shift == 0 ? v : (v >> shift) + ((v >> (shift - 1u)) & 1u);
}

/* ---- writer ---- */

void zl_bitwriter_init(zl_bitwriter *w, void *buf, size_t cap_bytes)
{
    ZL_ASSERT(w != NULL && (buf != NULL || cap_bytes == 0));
    w->data = (uint8_t *)buf;
    w->capacity_bits = bits_of(cap_bytes);
    w->bit_pos = 0;
    w->error = ZL_OK;
}

/* True when nbits more fit. Checking a whole multi-part code up front means
 * an overflowing write leaves nothing half written. */
static int has_room(zl_bitwriter *w, uint32_t nbits)
{
    if (w->error != ZL_OK)
        return 0;
    if (nbits > w->capacity_bits - w->bit_pos) {
        w->error = ZL_ERR_OVERFLOW;
        return 0;
    }
    return 1;
}

void zl_bitwriter_bits(zl_bitwriter *w, uint32_t value, unsigned nbits)
{
    uint32_t idx;
    unsigned off, done;
    ZL_ASSERT(nbits <= 32u && (nbits == 32u || (value >> nbits) == 0));
    if (nbits == 0 || !has_room(w, nbits))
        return;
    idx = w->bit_pos >> 3;
    off = w->bit_pos & 7u;
    /* The first byte keeps the bits already written below off; every later
     * byte is stored whole (its unused high bits zero), so the caller's
     * buffer need not be cleared first. */
    w->data[idx] = (uint8_t)((w->data[idx] & ((1u << off) - 1u)) | ((value << off) & 0xFFu));
    for (done = 8u - off; done < nbits; done += 8u)
        w->data[++idx] = (uint8_t)(value >> done);
    w->bit_pos += nbits;
}

void zl_bitwriter_bool(zl_bitwriter *w, int flag)
{
    zl_bitwriter_bits(w, flag ? 1u : 0u, 1);
}

void zl_bitwriter_ranged(zl_bitwriter *w, int32_t value, int32_t min, int32_t max)
{
    ZL_ASSERT(min <= max && value >= min && value <= max);
    /* Unsigned differences are exact even for the full int32 range. */
    zl_bitwriter_bits(w, (uint32_t)value - (uint32_t)min,
                      zl_bits_required((uint32_t)max - (uint32_t)min));
}

void zl_bitwriter_delta(zl_bitwriter *w, int32_t delta)
{
    uint32_t u = (uint32_t)delta;
    uint32_t z = (u << 1) ^ (0u - (u >> 31));
    unsigned c = 0;
    if (z == 0) {
        zl_bitwriter_bits(w, 0, 1);
    } else if (z < 16u) {
        zl_bitwriter_bits(w, 1u | (z << 1), 5);
    } else {
        while (delta_width[c] < 32u && (z >> delta_width[c]) != 0)
            c++;
        if (has_room(w, 7u + delta_width[c])) {
            zl_bitwriter_bits(w, 1u | ((uint32_t)c << 5), 7);
            zl_bitwriter_bits(w, z, delta_width[c]);
        }
    }
}

void zl_bitwriter_fx(zl_bitwriter *w, zl_fx value, zl_fx min, zl_fx max, unsigned frac_bits)
{
    unsigned shift = 16u - frac_bits;
    uint32_t range = (uint32_t)max - (uint32_t)min;
    ZL_ASSERT(min <= max && frac_bits <= 16u);
    if (value < min)
        value = min;
    if (value > max)
        value = max;
    zl_bitwriter_bits(w, round_shift((uint32_t)value - (uint32_t)min, shift),
                      zl_bits_required(round_shift(range, shift)));
}

void zl_bitwriter_bytes(zl_bitwriter *w, const void *src, size_t len)
{
    ZL_ASSERT(src != NULL || len == 0);
    zl_bitwriter_align(w);
    if (len == 0 || w->error != ZL_OK)
        return;
    /* Compared in bytes: len * 8 could wrap. */
    if (len > (w->capacity_bits - w->bit_pos) / 8u) {
        w->error = ZL_ERR_OVERFLOW;
        return;
    }
    memcpy(w->data + (w->bit_pos >> 3), src, len);
    w->bit_pos += (uint32_t)len * 8u;
}

void zl_bitwriter_align(zl_bitwriter *w)
{
    zl_bitwriter_bits(w, 0, (8u - (w->bit_pos & 7u)) & 7u);
}

int zl_bitwriter_finish(zl_bitwriter *w)
{
    zl_bitwriter_align(w);
    return w->error != ZL_OK ? w->error : (int)(w->bit_pos >> 3);
}

uint32_t zl_bitwriter_bits_used(const zl_bitwriter *w)
{
    return w->bit_pos;
}

/* Writes keep the bits below their position and store whole bytes above
 * it, so nothing taken back shows through. */
void zl_bitwriter_rewind(zl_bitwriter *w, uint32_t bits)
{
    ZL_ASSERT(bits <= w->bit_pos);
    w->bit_pos = bits;
}

/* The words copy_at moves: as wide as the machine's registers (a 64-bit
 * shift is a handful of instructions on a 32-bit core). */
#if UINTPTR_MAX > 0xFFFFFFFFu
typedef uint64_t chunk;
#else
typedef uint32_t chunk;
#endif
#define CHUNK_BYTES ((unsigned)sizeof(chunk))

/* A chunk little-endian at p: one load or store where the machine is
 * little-endian (compilers move the bytes one by one otherwise). */
static inline chunk get_chunk(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    chunk v;
    memcpy(&v, p, CHUNK_BYTES);
    return v;
#else
    return (chunk)zl_get_le(p, CHUNK_BYTES);
#endif
}

static inline void put_chunk(uint8_t *p, chunk v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, CHUNK_BYTES);
#else
    zl_put_le(p, v, CHUNK_BYTES);
#endif
}

void zl_bitwriter_copy(zl_bitwriter *w, const uint8_t *src, uint32_t nbits)
{
    zl_bitwriter_copy_at(w, src, 0, nbits);
}

void zl_bitwriter_copy_at(zl_bitwriter *w, const uint8_t *src, uint32_t first, uint32_t nbits)
{
    uint32_t i, full, acc, take;
    uint8_t *out;
    unsigned off, have, s;
    ZL_ASSERT(src != NULL || nbits == 0);
    if (nbits == 0 || !has_room(w, nbits))
        return;
    src += first >> 3;
    s = first & 7u;
    out = w->data + (w->bit_pos >> 3);
    off = w->bit_pos & 7u;
    w->bit_pos += nbits;
    /* The stream is little-endian in bits. When source and destination
     * sit at the same place in their bytes (a snapshot's shared prefix,
     * always), the bytes between the two ends move whole. */
    if (s == off) {
        uint8_t keep = (uint8_t)((1u << off) - 1u);
        if (off + nbits <= 8u) {
            uint8_t mask = (uint8_t)(((1u << nbits) - 1u) << off);
            *out = (uint8_t)((*out & keep) | (*src & mask));
            return;
        }
        *out = (uint8_t)((*out & keep) | (*src & ~keep));
        nbits -= 8u - off;
        full = nbits >> 3;
        memcpy(out + 1, src + 1, full);
        if (nbits & 7u)
            out[1u + full] = (uint8_t)(src[1u + full] & ((1u << (nbits & 7u)) - 1u));
        return;
    }
    /* Otherwise an accumulator shifts every byte: it holds `have` bits not
     * yet stored (fewer than 8 between bytes), starting with those the
     * destination byte already has. */
    acc = *out & ((1u << off) - 1u);
    have = off;
    take = 8u - s < nbits ? 8u - s : nbits;
    acc |= ((uint32_t)*src++ >> s & ((1u << take) - 1u)) << have;
    have += take;
    nbits -= take;
    if (have >= 8u) {
        *out++ = (uint8_t)acc;
        acc >>= 8;
        have -= 8u;
    }
    full = nbits >> 3;
    /* A chunk a step: the accumulator's few bits, then a chunk more; its
     * top `have` bits carry over, shifted in two steps so that none is by
     * the chunk's width. */
    for (i = 0; i + CHUNK_BYTES <= full; i += CHUNK_BYTES, out += CHUNK_BYTES) {
        chunk word = get_chunk(src + i);
        put_chunk(out, (chunk)acc | word << have);
        acc = (uint32_t)((word >> 1) >> (8u * CHUNK_BYTES - 1u - have));
    }
    for (; i < full; i++) {
        acc |= (uint32_t)src[i] << have;
        *out++ = (uint8_t)acc;
        acc >>= 8;
    }
    if (nbits & 7u) {
        acc |= (uint32_t)(src[full] & ((1u << (nbits & 7u)) - 1u)) << have;
        have += nbits & 7u;
    }
    for (; have >= 8u; have -= 8u) {
        *out++ = (uint8_t)acc;
        acc >>= 8;
    }
    if (have > 0)
        *out = (uint8_t)acc;
}

/* ---- reader ---- */

void zl_bitreader_init(zl_bitreader *r, const void *buf, size_t size_bytes)
{
    ZL_ASSERT(r != NULL && (buf != NULL || size_bytes == 0));
    r->data = (const uint8_t *)buf;
    r->size_bits = bits_of(size_bytes);
    r->bit_pos = 0;
    r->error = ZL_OK;
}

/* The first error sticks; consuming the rest makes bits_left 0, so a loop
 * bounded by it ends. Every read checks error first and then gives 0. */
static void fail(zl_bitreader *r, int err)
{
    if (r->error == ZL_OK)
        r->error = err;
    r->bit_pos = r->size_bits;
}

uint32_t zl_bitreader_bits_any(zl_bitreader *r, unsigned nbits)
{
    uint32_t idx, value;
    unsigned shift;
    ZL_ASSERT(nbits <= 32u);
    if (r->error != ZL_OK || nbits == 0)
        return 0;
    if (nbits > r->size_bits - r->bit_pos) {
        fail(r, ZL_ERR_OVERFLOW);
        return 0;
    }
    idx = r->bit_pos >> 3;
    shift = r->bit_pos & 7u;
    /* Only bytes holding at least one wanted bit are loaded, so a buffer
     * whose size is not a multiple of 4 is never read past its end. (Four
     * whole bytes at hand: the inline zl_bitreader_bits reads them.) */
    value = (uint32_t)r->data[idx] >> shift;
    for (shift = 8u - shift; shift < nbits; shift += 8u)
        value |= (uint32_t)r->data[++idx] << shift;
    if (nbits < 32u)
        value &= (1u << nbits) - 1u;
    r->bit_pos += nbits;
    return value;
}

int32_t zl_bitreader_ranged(zl_bitreader *r, int32_t min, int32_t max)
{
    uint32_t range = (uint32_t)max - (uint32_t)min;
    uint32_t v;
    ZL_ASSERT(min <= max);
    v = zl_bitreader_bits(r, zl_bits_required(range));
    if (v > range) {
        fail(r, ZL_ERR_MALFORMED);
        return min;
    }
    return zl_to_i32((uint32_t)min + v);
}

int32_t zl_bitreader_delta(zl_bitreader *r)
{
    uint32_t z;
    if (!zl_bitreader_bool(r))
        return 0;
    z = zl_bitreader_bits(r, 4);
    if (z == 0)
        z = zl_bitreader_bits(r, delta_width[zl_bitreader_bits(r, 2)]);
    /* A read cut short gives 0 for every later part, so z is 0 and so is
     * the result, as the contract asks. */
    return zl_to_i32((z >> 1) ^ (0u - (z & 1u)));
}

zl_fx zl_bitreader_fx(zl_bitreader *r, zl_fx min, zl_fx max, unsigned frac_bits)
{
    unsigned shift = 16u - frac_bits;
    uint32_t range = (uint32_t)max - (uint32_t)min;
    uint32_t qmax, q;
    ZL_ASSERT(min <= max && frac_bits <= 16u);
    qmax = round_shift(range, shift);
    q = zl_bitreader_bits(r, zl_bits_required(qmax));
    if (q > qmax) {
        fail(r, ZL_ERR_MALFORMED);
        return min;
    }
    /* The top code can stand for a point past max when the range is not a
     * whole number of steps. The value written was at most max, so pinning
     * to max only brings the result closer (and keeps q << shift in range). */
    if (q > (range >> shift))
        return max;
    return zl_to_i32((uint32_t)min + (q << shift));
}

void zl_bitreader_bytes(zl_bitreader *r, void *dst, size_t len)
{
    ZL_ASSERT(dst != NULL || len == 0);
    zl_bitreader_align(r);
    if (len == 0)
        return;
    if (r->error == ZL_OK && len > (r->size_bits - r->bit_pos) / 8u)
        fail(r, ZL_ERR_OVERFLOW);
    if (r->error != ZL_OK) {
        memset(dst, 0, len);
        return;
    }
    memcpy(dst, r->data + (r->bit_pos >> 3), len);
    r->bit_pos += (uint32_t)len * 8u;
}

void zl_bitreader_align(zl_bitreader *r)
{
    /* size_bits is a multiple of 8, so rounding up never passes the end. */
    r->bit_pos = (r->bit_pos + 7u) & ~7u;
}

uint32_t zl_bitreader_bits_left(const zl_bitreader *r)
{
    return r->size_bits - r->bit_pos;
}

void zl_bitwriter_bits64(zl_bitwriter *w, uint64_t value)
{
    zl_bitwriter_bits(w, (uint32_t)value, 32);
    zl_bitwriter_bits(w, (uint32_t)(value >> 32), 32);
}

uint64_t zl_bitreader_bits64(zl_bitreader *r)
{
    uint64_t low = zl_bitreader_bits(r, 32);
    return low | (uint64_t)zl_bitreader_bits(r, 32) << 32;
}
