/* test_bits.c - the bit writer and reader: golden bytes, random round trips,
 * every truncation of a message, overflow, the delta code and quantisation. */
#include <string.h>

#include "zl_bits.h"
#include "zl_test.h"

/* ---- oracles, written independently of zl_bits.c ---- */

static unsigned bit_length(uint64_t v)
{
    unsigned n = 0;
    for (; v != 0; v /= 2)
        n++;
    return n;
}

/* Delta cost from the table in zl_bits.h, via the zigzag value in 64 bits. */
static uint32_t delta_cost(int32_t d)
{
    int64_t z = d >= 0 ? 2 * (int64_t)d : -2 * (int64_t)d - 1;
    if (z == 0)
        return 1;
    if (z < 16)
        return 5;
    if (z < 256)
        return 15;
    if (z < 4096)
        return 19;
    if (z < 65536)
        return 23;
    return 39;
}

/* Quantised fx as the header describes it: clamp, round to nearest step
 * (halves up), then no further than max. Plain 64-bit arithmetic. */
static int32_t fx_expected(int32_t v, int32_t min, int32_t max, unsigned frac)
{
    int64_t step = (int64_t)1 << (16 - frac);
    int64_t off, q, out;
    if (v < min)
        v = min;
    if (v > max)
        v = max;
    off = (int64_t)v - min;
    q = (off + step / 2) / step;
    out = (int64_t)min + q * step;
    return (int32_t)(out > max ? max : out);
}

static uint32_t fx_cost(int32_t min, int32_t max, unsigned frac)
{
    int64_t step = (int64_t)1 << (16 - frac);
    return bit_length((uint64_t)((((int64_t)max - min) + step / 2) / step));
}

/* A random int32 with a random bit length, so small and huge values and the
 * extremes all occur often. */
static int32_t rand_i32(zl_test_rng *rng)
{
    uint32_t len = zl_test_rng_u32(rng) % 33u;
    if (len == 32)
        return zl_test_rng_u32(rng) & 1u ? INT32_MIN : INT32_MAX;
    if (len == 31)
        return zl_test_rng_range(rng, INT32_MIN, INT32_MAX);
    return zl_test_rng_range(rng, -(int32_t)(1u << len), (int32_t)(1u << len) - 1);
}

static void rand_span(zl_test_rng *rng, int32_t *min, int32_t *max)
{
    int32_t a = rand_i32(rng), b = rand_i32(rng);
    if (zl_test_rng_u32(rng) % 8u == 0)
        b = a;
    *min = a < b ? a : b;
    *max = a < b ? b : a;
}

/* ---- a message as a list of fields, for round trips and truncation ---- */

enum { F_BITS, F_BOOL, F_RANGED, F_DELTA, F_FX, F_BYTES, F_ALIGN, F_KINDS };

typedef struct field {
    int kind;
    uint32_t u;       /* F_BITS value, F_BOOL flag */
    unsigned n;       /* bit count, frac_bits or byte count */
    int32_t v, lo, hi; /* value and range */
    uint8_t bytes[8];
    uint32_t end;     /* writer position after the field */
} field;

static void random_field(zl_test_rng *rng, field *f)
{
    memset(f, 0, sizeof *f);
    f->kind = (int)(zl_test_rng_u32(rng) % F_KINDS);
    switch (f->kind) {
    case F_BITS:
        f->n = zl_test_rng_u32(rng) % 33u;
        f->u = f->n == 32 ? zl_test_rng_u32(rng)
                          : zl_test_rng_u32(rng) & (uint32_t)((1ull << f->n) - 1u);
        break;
    case F_BOOL: f->u = zl_test_rng_u32(rng) & 1u; break;
    case F_RANGED:
        rand_span(rng, &f->lo, &f->hi);
        f->v = zl_test_rng_range(rng, f->lo, f->hi);
        break;
    case F_DELTA: f->v = rand_i32(rng); break;
    case F_FX:
        rand_span(rng, &f->lo, &f->hi);
        f->n = zl_test_rng_u32(rng) % 17u;
        f->v = rand_i32(rng); /* often outside [lo, hi]: clamped */
        break;
    case F_BYTES: {
        unsigned i;
        f->n = zl_test_rng_u32(rng) % 9u;
        for (i = 0; i < f->n; i++)
            f->bytes[i] = (uint8_t)zl_test_rng_u32(rng);
        break;
    }
    default: break;
    }
}

static void write_field(zl_bitwriter *w, field *f)
{
    switch (f->kind) {
    case F_BITS: zl_bitwriter_bits(w, f->u, f->n); break;
    case F_BOOL: zl_bitwriter_bool(w, (int)f->u); break;
    case F_RANGED: zl_bitwriter_ranged(w, f->v, f->lo, f->hi); break;
    case F_DELTA: zl_bitwriter_delta(w, f->v); break;
    case F_FX: zl_bitwriter_fx(w, f->v, f->lo, f->hi, f->n); break;
    case F_BYTES: zl_bitwriter_bytes(w, f->bytes, f->n); break;
    default: zl_bitwriter_align(w); break;
    }
    f->end = zl_bitwriter_bits_used(w);
}

/* Reads f back; intact says whether it must come back as written, else it
 * must come back as the error value (0, min, zero bytes). Returns 1 when so. */
static int read_field(zl_bitreader *r, const field *f, int intact)
{
    uint8_t got[8];
    switch (f->kind) {
    case F_BITS: return zl_bitreader_bits(r, f->n) == (intact ? f->u : 0u);
    case F_BOOL: return zl_bitreader_bool(r) == (int)(intact ? f->u : 0u);
    case F_RANGED: return zl_bitreader_ranged(r, f->lo, f->hi) == (intact ? f->v : f->lo);
    case F_DELTA: return zl_bitreader_delta(r) == (intact ? f->v : 0);
    case F_FX:
        return zl_bitreader_fx(r, f->lo, f->hi, f->n) ==
               (intact ? fx_expected(f->v, f->lo, f->hi, f->n) : f->lo);
    case F_BYTES: {
        static const uint8_t zero[8];
        memset(got, 0x5A, sizeof got);
        zl_bitreader_bytes(r, got, f->n);
        return memcmp(got, intact ? f->bytes : zero, f->n) == 0;
    }
    default: zl_bitreader_align(r); return 1;
    }
}

/* ---- tests ---- */

/* Bytes worked out by hand from "bit i is bit i % 8 of byte i / 8":
 * 101 | 1 | 0xABC over 12 bits | 11 | 1 | 0x12345678 over 32 bits gives
 * CD AB C7 B3 A2 91 00; the deltas 0, -1, 7, 100 give
 * 0 | 1 1000 | 1 0111 | 1 0000 00 00010011 = 46 0F 20 03. The buffers start
 * as 0xFF to show the writer does not need them cleared. */
static void test_golden_bytes(void)
{
    static const uint8_t want1[7] = {0xCD, 0xAB, 0xC7, 0xB3, 0xA2, 0x91, 0x00};
    static const uint8_t want2[4] = {0x46, 0x0F, 0x20, 0x03};
    uint8_t buf[16];
    zl_bitwriter w;
    zl_bitreader r;

    memset(buf, 0xFF, sizeof buf);
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bits(&w, 5, 3);
    zl_bitwriter_bool(&w, 1);
    zl_bitwriter_bits(&w, 0xABC, 12);
    zl_bitwriter_bits(&w, 3, 2);
    zl_bitwriter_bool(&w, 7);
    zl_bitwriter_bits(&w, 0x12345678u, 32);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 51);
    ZL_CHECK_EQ(zl_bitwriter_finish(&w), 7);
    ZL_CHECK(memcmp(buf, want1, sizeof want1) == 0);
    ZL_CHECK_EQ(buf[7], 0xFF);

    zl_bitreader_init(&r, want1, sizeof want1);
    ZL_CHECK_EQ(zl_bitreader_bits(&r, 4), 0xD);
    ZL_CHECK_EQ(zl_bitreader_bits(&r, 12), 0xABC);
    ZL_CHECK_EQ(zl_bitreader_bits(&r, 3), 7);
    ZL_CHECK_EQ(zl_bitreader_bits(&r, 32), 0x12345678u);
    ZL_CHECK_EQ(zl_bitreader_bits_left(&r), 5);
    ZL_CHECK_EQ(r.error, ZL_OK);

    memset(buf, 0xFF, sizeof buf);
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_delta(&w, 0);
    zl_bitwriter_delta(&w, -1);
    zl_bitwriter_delta(&w, 7);
    zl_bitwriter_delta(&w, 100);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 26);
    ZL_CHECK_EQ(zl_bitwriter_finish(&w), 4);
    ZL_CHECK(memcmp(buf, want2, sizeof want2) == 0);

    zl_bitreader_init(&r, want2, sizeof want2);
    ZL_CHECK_EQ(zl_bitreader_delta(&r), 0);
    ZL_CHECK_EQ(zl_bitreader_delta(&r), -1);
    ZL_CHECK_EQ(zl_bitreader_delta(&r), 7);
    ZL_CHECK_EQ(zl_bitreader_delta(&r), 100);
    ZL_CHECK_EQ(r.error, ZL_OK);
}

static void test_bits_required(void)
{
    zl_test_rng rng;
    int i;
    ZL_CHECK_EQ(zl_bits_required(0), 0);
    ZL_CHECK_EQ(zl_bits_required(1), 1);
    ZL_CHECK_EQ(zl_bits_required(2), 2);
    ZL_CHECK_EQ(zl_bits_required(255), 8);
    ZL_CHECK_EQ(zl_bits_required(256), 9);
    ZL_CHECK_EQ(zl_bits_required(UINT32_MAX), 32);
    zl_test_rng_seed(&rng, 11);
    for (i = 0; i < ZL_TEST_ITERATIONS(20000); i++) {
        uint32_t v = zl_test_rng_u32(&rng) >> (zl_test_rng_u32(&rng) % 32u);
        ZL_CHECK_EQ(zl_bits_required(v), bit_length(v));
    }
}

/* Mixed messages of every kind of write read back exactly, sizes as
 * documented where the test can compute them. */
static void test_random_round_trip(void)
{
    static field fields[64];
    static uint8_t buf[ZL_MAX_PACKET];
    zl_test_rng rng;
    int msg;
    uint32_t total_bits = 0;
    zl_test_rng_seed(&rng, 1234);
    for (msg = 0; msg < ZL_TEST_ITERATIONS(3000); msg++) {
        size_t count = 1 + zl_test_rng_u32(&rng) % 64u, i;
        zl_bitwriter w;
        zl_bitreader r;
        int bytes, ok = 1;
        uint32_t before = 0;
        zl_bitwriter_init(&w, buf, sizeof buf);
        for (i = 0; i < count; i++) {
            random_field(&rng, &fields[i]);
            write_field(&w, &fields[i]);
            if (fields[i].kind == F_DELTA)
                ok &= fields[i].end - before == delta_cost(fields[i].v);
            if (fields[i].kind == F_FX)
                ok &= fields[i].end - before ==
                      fx_cost(fields[i].lo, fields[i].hi, fields[i].n);
            before = fields[i].end;
        }
        ZL_CHECK(ok);
        ZL_CHECK_EQ(w.error, ZL_OK);
        bytes = zl_bitwriter_finish(&w);
        ZL_CHECK_EQ(bytes, (int)((before + 7) / 8));
        total_bits += before;

        zl_bitreader_init(&r, buf, (size_t)bytes);
        for (i = 0; i < count; i++)
            if (!ZL_CHECK(read_field(&r, &fields[i], 1)))
                break;
        ZL_CHECK_EQ(r.error, ZL_OK);
        ZL_CHECK_EQ(zl_bitreader_bits_left(&r), (uint32_t)bytes * 8u - before);
    }
    zl_test_note("%d messages, %lu bits in all", msg, (unsigned long)total_bits);
}

/* One message read through every prefix of itself, each prefix copied to
 * an exactly sized heap block so the sanitizer sees any read past it. */
static void test_every_truncation(void)
{
    field f[] = {
        {.kind = F_BITS, .u = 0x2A, .n = 7},
        {.kind = F_BOOL, .u = 1},
        {.kind = F_RANGED, .v = -5, .lo = -100, .hi = 100},
        {.kind = F_DELTA, .v = 0},
        {.kind = F_DELTA, .v = -3},
        {.kind = F_DELTA, .v = 1000},
        {.kind = F_FX, .v = ZL_FX_RATIO(-1234567, 100), .lo = ZL_FX_INT(-20000),
         .hi = ZL_FX_INT(20000), .n = 9},
        {.kind = F_BITS, .u = 0xDEADBEEFu, .n = 32},
        {.kind = F_BYTES, .bytes = {'h', 'e', 'l', 'l', 'o'}, .n = 5},
        {.kind = F_BOOL, .u = 1},
        {.kind = F_RANGED, .v = -77, .lo = INT32_MIN, .hi = INT32_MAX},
        {.kind = F_DELTA, .v = INT32_MIN},
        {.kind = F_FX, .v = ZL_FX_ONE, .lo = 0, .hi = ZL_FX_INT(2), .n = 3},
        {.kind = F_BITS, .u = 1, .n = 1},
        {.kind = F_ALIGN},
        {.kind = F_RANGED, .v = 7, .lo = 0, .hi = 7},
        {.kind = F_BYTES, .bytes = {'x', 'y', 'z'}, .n = 3},
        {.kind = F_DELTA, .v = 5},
    };
    const size_t nf = ZL_COUNTOF(f);
    uint8_t buf[128];
    zl_bitwriter w;
    size_t i, len;
    int total;

    zl_bitwriter_init(&w, buf, sizeof buf);
    for (i = 0; i < nf; i++)
        write_field(&w, &f[i]);
    total = zl_bitwriter_finish(&w);
    ZL_CHECK(total > 0);

    for (len = 0; len < (size_t)total; len++) {
        uint8_t *copy = (uint8_t *)zl_test_exact_buffer(len);
        uint32_t have = (uint32_t)len * 8u;
        int seen_cut = 0, ok = 1;
        zl_bitreader r;
        if (len > 0 && !ZL_CHECK(copy != NULL))
            return;
        if (len > 0)
            memcpy(copy, buf, len);
        zl_bitreader_init(&r, copy, len);
        for (i = 0; i < nf; i++) {
            int intact = f[i].end <= have;
            ok &= read_field(&r, &f[i], intact);
            if (!intact)
                seen_cut = 1;
            ok &= r.error == (seen_cut ? ZL_ERR_OVERFLOW : ZL_OK);
            if (seen_cut)
                ok &= zl_bitreader_bits_left(&r) == 0;
        }
        ZL_CHECK(seen_cut);
        if (!ZL_CHECK(ok))
            zl_test_note("prefix of %lu bytes read wrongly", (unsigned long)len);
        zl_test_release_buffer(copy);
    }
    zl_test_note("%d-byte message read through all %d prefixes", total, total);
}

/* A reader over 3 bytes never needs a fourth, at any bit offset. */
static void test_reader_odd_sizes(void)
{
    size_t size;
    for (size = 1; size <= 9; size++) {
        uint8_t *buf = (uint8_t *)zl_test_exact_buffer(size);
        unsigned off;
        size_t i;
        if (!ZL_CHECK(buf != NULL))
            return;
        for (i = 0; i < size; i++)
            buf[i] = (uint8_t)(0x11u * (i + 1));
        for (off = 0; off < 8 && off < size * 8; off++) {
            uint32_t left = (uint32_t)size * 8u - off;
            unsigned n = left < 32u ? (unsigned)left : 32u;
            uint64_t want = 0;
            zl_bitreader r;
            /* The n bits after off, gathered one bit at a time. */
            for (i = 0; i < n; i++)
                want |= (uint64_t)(((uint32_t)buf[(off + i) / 8] >> ((off + i) % 8)) & 1u) << i;
            zl_bitreader_init(&r, buf, size);
            zl_bitreader_bits(&r, off);
            ZL_CHECK_EQ(zl_bitreader_bits(&r, n), want);
            ZL_CHECK_EQ(zl_bitreader_bits_left(&r), left - n);
            ZL_CHECK_EQ(r.error, ZL_OK);
        }
        zl_test_release_buffer(buf);
    }
}

static void test_reader_overflow_sticky(void)
{
    uint8_t *buf = (uint8_t *)zl_test_exact_buffer(3);
    uint8_t dst[4];
    zl_bitreader r;
    if (!ZL_CHECK(buf != NULL))
        return;
    buf[0] = 0xFF, buf[1] = 0xFF, buf[2] = 0xFF;
    zl_bitreader_init(&r, buf, 3);
    ZL_CHECK_EQ(zl_bitreader_bits(&r, 20), 0xFFFFF);
    ZL_CHECK_EQ(zl_bitreader_bits(&r, 5), 0); /* 4 left */
    ZL_CHECK_EQ(r.error, ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(zl_bitreader_bits_left(&r), 0);
    ZL_CHECK_EQ(zl_bitreader_bits(&r, 1), 0);
    ZL_CHECK_EQ(zl_bitreader_bool(&r), 0);
    ZL_CHECK_EQ(zl_bitreader_ranged(&r, -9, 9), -9);
    ZL_CHECK_EQ(zl_bitreader_delta(&r), 0);
    ZL_CHECK_EQ(zl_bitreader_fx(&r, ZL_FX_INT(-3), ZL_FX_INT(3), 8), ZL_FX_INT(-3));
    memset(dst, 0x77, sizeof dst);
    zl_bitreader_bytes(&r, dst, sizeof dst);
    ZL_CHECK(dst[0] == 0 && dst[1] == 0 && dst[2] == 0 && dst[3] == 0);
    zl_bitreader_align(&r);
    ZL_CHECK_EQ(zl_bitreader_bits_left(&r), 0);
    ZL_CHECK_EQ(r.error, ZL_ERR_OVERFLOW);

    /* Bytes that do not fit: nothing copied, dst zeroed. */
    zl_bitreader_init(&r, buf, 3);
    zl_bitreader_bool(&r);
    memset(dst, 0x77, sizeof dst);
    zl_bitreader_bytes(&r, dst, 3); /* aligned to byte 1: 2 remain */
    ZL_CHECK(dst[0] == 0 && dst[1] == 0 && dst[2] == 0 && dst[3] == 0x77);
    ZL_CHECK_EQ(r.error, ZL_ERR_OVERFLOW);

    /* An empty buffer. */
    zl_bitreader_init(&r, NULL, 0);
    ZL_CHECK_EQ(zl_bitreader_bits(&r, 0), 0);
    ZL_CHECK_EQ(r.error, ZL_OK);
    ZL_CHECK_EQ(zl_bitreader_bool(&r), 0);
    ZL_CHECK_EQ(r.error, ZL_ERR_OVERFLOW);
    zl_test_release_buffer(buf);
}

static void test_writer_overflow(void)
{
    uint8_t buf[8];
    zl_bitwriter w;

    memset(buf, 0xAA, sizeof buf);
    zl_bitwriter_init(&w, buf, 4);
    zl_bitwriter_bits(&w, 0xFFFFFF, 24);
    ZL_CHECK_EQ(w.error, ZL_OK);
    /* 15 bits into 8: its 7-bit head would fit, but none of it may land. */
    zl_bitwriter_delta(&w, 100);
    ZL_CHECK_EQ(w.error, ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 24);
    ZL_CHECK_EQ(buf[3], 0xAA);
    zl_bitwriter_bool(&w, 1); /* would fit, but the error is sticky */
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 24);
    ZL_CHECK_EQ(buf[3], 0xAA);
    ZL_CHECK_EQ(zl_bitwriter_finish(&w), ZL_ERR_OVERFLOW);
    ZL_CHECK(buf[4] == 0xAA && buf[5] == 0xAA && buf[6] == 0xAA && buf[7] == 0xAA);

    /* Exactly full is fine. */
    zl_bitwriter_init(&w, buf, 4);
    zl_bitwriter_bits(&w, 0xFFFFFFFFu, 32);
    zl_bitwriter_bits(&w, 0, 0);
    zl_bitwriter_align(&w);
    ZL_CHECK_EQ(zl_bitwriter_finish(&w), 4);
    zl_bitwriter_bool(&w, 0);
    ZL_CHECK_EQ(zl_bitwriter_finish(&w), ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(buf[4], 0xAA);

    /* Bytes: 1 bit aligns to byte 1, leaving 3 bytes for 4. */
    zl_bitwriter_init(&w, buf, 4);
    zl_bitwriter_bool(&w, 1);
    zl_bitwriter_bytes(&w, "abcd", 4);
    ZL_CHECK_EQ(w.error, ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 8);
    ZL_CHECK_EQ(buf[1], 0xFF); /* from the 32-bit write above, untouched */

    /* A zero-capacity writer. */
    zl_bitwriter_init(&w, NULL, 0);
    ZL_CHECK_EQ(zl_bitwriter_finish(&w), 0);
    zl_bitwriter_delta(&w, 0);
    ZL_CHECK_EQ(zl_bitwriter_finish(&w), ZL_ERR_OVERFLOW);
}

static void test_delta_sizes_and_extremes(void)
{
    static const int32_t cases[] = {0, 1, -1, 7, -7, -8, 8, 127, -128, 128, -129,
                                    2047, -2048, 2048, 32767, -32768, 32768, -32769,
                                    INT32_MAX, INT32_MIN, INT32_MIN + 1};
    static const uint32_t cost[] = {1, 5, 5, 5, 5, 5, 15, 15, 15, 19, 19,
                                    19, 19, 23, 23, 23, 39, 39, 39, 39, 39};
    uint8_t buf[16];
    zl_test_rng rng;
    size_t i;
    int n;
    for (i = 0; i < ZL_COUNTOF(cases); i++) {
        zl_bitwriter w;
        zl_bitreader r;
        zl_bitwriter_init(&w, buf, sizeof buf);
        zl_bitwriter_delta(&w, cases[i]);
        ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), cost[i]);
        ZL_CHECK_EQ(delta_cost(cases[i]), cost[i]);
        zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
        ZL_CHECK_EQ(zl_bitreader_delta(&r), cases[i]);
        ZL_CHECK_EQ(r.error, ZL_OK);
    }
    /* Every |d| < 8 costs 5 bits. */
    for (n = -7; n <= 7; n++) {
        zl_bitwriter w;
        zl_bitwriter_init(&w, buf, sizeof buf);
        zl_bitwriter_delta(&w, n);
        ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), n == 0 ? 1 : 5);
    }
    /* Any 39-bit pattern decodes without error: the code has no invalid
     * words, and a wide class may carry a small value. */
    zl_test_rng_seed(&rng, 99);
    for (n = 0; n < ZL_TEST_ITERATIONS(2000); n++) {
        zl_bitwriter w;
        zl_bitreader r;
        uint32_t c = zl_test_rng_u32(&rng) % 4u, z = zl_test_rng_u32(&rng);
        static const unsigned width[4] = {8, 12, 16, 32};
        int64_t want;
        if (width[c] < 32)
            z &= (1u << width[c]) - 1u;
        want = (z & 1u) ? -((int64_t)z + 1) / 2 : (int64_t)z / 2;
        zl_bitwriter_init(&w, buf, sizeof buf);
        zl_bitwriter_bits(&w, 1u | (c << 5), 7);
        zl_bitwriter_bits(&w, z, width[c]);
        zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
        if (!ZL_CHECK_EQ(zl_bitreader_delta(&r), want) || !ZL_CHECK_EQ(r.error, ZL_OK))
            break;
    }
}

static void test_ranged_extremes_and_malformed(void)
{
    uint8_t buf[16];
    zl_bitwriter w;
    zl_bitreader r;
    zl_test_rng rng;
    int i;

    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_ranged(&w, INT32_MIN, INT32_MIN, INT32_MAX);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 32);
    zl_bitwriter_ranged(&w, INT32_MAX, INT32_MIN, INT32_MAX);
    zl_bitwriter_ranged(&w, 42, 42, 42);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 64);
    zl_bitwriter_ranged(&w, -1, -1, 0);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 65);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK_EQ(zl_bitreader_ranged(&r, INT32_MIN, INT32_MAX), INT32_MIN);
    ZL_CHECK_EQ(zl_bitreader_ranged(&r, INT32_MIN, INT32_MAX), INT32_MAX);
    ZL_CHECK_EQ(zl_bitreader_ranged(&r, 42, 42), 42);
    ZL_CHECK_EQ(zl_bitreader_ranged(&r, -1, 0), -1);
    ZL_CHECK_EQ(r.error, ZL_OK);

    /* 0..9 takes 4 bits; 10..15 on the wire are malformed. */
    for (i = 10; i < 16; i++) {
        zl_bitwriter_init(&w, buf, sizeof buf);
        zl_bitwriter_bits(&w, (uint32_t)i, 4);
        zl_bitwriter_bits(&w, 0xFFFF, 16);
        zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
        ZL_CHECK_EQ(zl_bitreader_ranged(&r, 0, 9), 0);
        ZL_CHECK_EQ(r.error, ZL_ERR_MALFORMED);
        ZL_CHECK_EQ(zl_bitreader_bits_left(&r), 0);
        ZL_CHECK_EQ(zl_bitreader_bits(&r, 16), 0);
        ZL_CHECK_EQ(zl_bitreader_ranged(&r, -3, 3), -3);
        ZL_CHECK_EQ(r.error, ZL_ERR_MALFORMED);
    }
    /* The same through an offset range: -1000..-991 is also 4 bits. */
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bits(&w, 9, 4);
    zl_bitwriter_bits(&w, 10, 4);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK_EQ(zl_bitreader_ranged(&r, -1000, -991), -991);
    ZL_CHECK_EQ(zl_bitreader_ranged(&r, -1000, -991), -1000);
    ZL_CHECK_EQ(r.error, ZL_ERR_MALFORMED);

    /* Full range: every 32-bit word is valid. */
    zl_test_rng_seed(&rng, 5);
    for (i = 0; i < 100; i++) {
        uint32_t raw = zl_test_rng_u32(&rng);
        int64_t want = (int64_t)raw + INT32_MIN;
        zl_bitwriter_init(&w, buf, sizeof buf);
        zl_bitwriter_bits(&w, raw, 32);
        zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
        ZL_CHECK_EQ(zl_bitreader_ranged(&r, INT32_MIN, INT32_MAX), want);
        ZL_CHECK_EQ(r.error, ZL_OK);
    }
}

/* Quantisation error never exceeds half a step, results stay in range, and
 * a code past the top of the range is malformed. */
/* Copying a stream written elsewhere gives the same bytes as writing its
 * values directly, at every bit offset and length; a copy that does not
 * fit appends nothing and sticks the error. */
static void test_copy(void)
{
    zl_test_rng rng;
    int iter;
    zl_test_rng_seed(&rng, 77);
    for (iter = 0; iter < ZL_TEST_ITERATIONS(3000); iter++) {
        uint8_t src[16], direct[24], copied[24];
        uint32_t values[8];
        unsigned widths[8], k, count = (unsigned)zl_test_rng_range(&rng, 0, 8);
        unsigned lead = (unsigned)zl_test_rng_range(&rng, 0, 15);
        uint32_t lead_value = zl_test_rng_u32(&rng) & ((1u << lead) - 1u);
        zl_bitwriter ws, wd, wc;
        zl_bitwriter_init(&ws, src, sizeof src);
        zl_bitwriter_init(&wd, direct, sizeof direct);
        zl_bitwriter_init(&wc, copied, sizeof copied);
        memset(direct, 0xA5, sizeof direct); /* stale bytes must not leak */
        memset(copied, 0x5A, sizeof copied);
        zl_bitwriter_bits(&wd, lead_value, lead);
        zl_bitwriter_bits(&wc, lead_value, lead);
        for (k = 0; k < count; k++) {
            widths[k] = (unsigned)zl_test_rng_range(&rng, 1, 16);
            values[k] = zl_test_rng_u32(&rng) & ((1u << widths[k]) - 1u);
            zl_bitwriter_bits(&ws, values[k], widths[k]);
            zl_bitwriter_bits(&wd, values[k], widths[k]);
        }
        zl_bitwriter_copy(&wc, src, zl_bitwriter_bits_used(&ws));
        zl_bitwriter_bits(&wd, 5, 3); /* and writing goes on after it */
        zl_bitwriter_bits(&wc, 5, 3);
        ZL_CHECK_EQ(zl_bitwriter_bits_used(&wc), zl_bitwriter_bits_used(&wd));
        ZL_CHECK_EQ(zl_bitwriter_finish(&wc), zl_bitwriter_finish(&wd));
        ZL_CHECK(memcmp(copied, direct, (zl_bitwriter_bits_used(&wd) + 7u) / 8u) == 0);
    }
    {
        uint8_t src[4] = {0xFF, 0xFF, 0xFF, 0xFF}, small[2];
        zl_bitwriter w;
        zl_bitwriter_init(&w, small, sizeof small);
        zl_bitwriter_bits(&w, 1, 3);
        zl_bitwriter_copy(&w, src, 14); /* 3 + 14 > 16 */
        ZL_CHECK_EQ(w.error, ZL_ERR_OVERFLOW);
        ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 3u);
    }
}

/* A slice cut from any bit of a stream and appended at any bit equals
 * its bits read one by one and written; bytes past the slice stay unread
 * (the source is exactly as long as the slice needs). */
static void test_copy_at(void)
{
    zl_test_rng rng;
    int iter;
    zl_test_rng_seed(&rng, 78);
    for (iter = 0; iter < ZL_TEST_ITERATIONS(3000); iter++) {
        uint8_t src[40], direct[48], copied[48];
        uint32_t first = (uint32_t)zl_test_rng_range(&rng, 0, 100);
        uint32_t n = (uint32_t)zl_test_rng_range(&rng, 0, 200), i;
        unsigned lead = (unsigned)zl_test_rng_range(&rng, 0, 15);
        uint32_t lead_value = zl_test_rng_u32(&rng) & ((1u << lead) - 1u);
        size_t src_len = (first + n + 7u) / 8u;
        zl_bitreader r;
        zl_bitwriter wd, wc;
        for (i = 0; i < sizeof src; i++)
            src[i] = (uint8_t)zl_test_rng_u32(&rng);
        zl_bitwriter_init(&wd, direct, sizeof direct);
        zl_bitwriter_init(&wc, copied, sizeof copied);
        memset(direct, 0xA5, sizeof direct);
        memset(copied, 0x5A, sizeof copied);
        zl_bitwriter_bits(&wd, lead_value, lead);
        zl_bitwriter_bits(&wc, lead_value, lead);
        zl_bitreader_init(&r, src, src_len);
        zl_bitreader_bits(&r, 0);
        for (i = 0; i < first; i++)
            (void)zl_bitreader_bool(&r);
        for (i = 0; i < n; i++)
            zl_bitwriter_bool(&wd, zl_bitreader_bool(&r));
        zl_bitwriter_copy_at(&wc, src, first, n);
        zl_bitwriter_bits(&wd, 5, 3);
        zl_bitwriter_bits(&wc, 5, 3);
        ZL_CHECK_EQ(r.error, ZL_OK);
        ZL_CHECK_EQ(zl_bitwriter_finish(&wc), zl_bitwriter_finish(&wd));
        ZL_CHECK(memcmp(copied, direct, (zl_bitwriter_bits_used(&wd) + 7u) / 8u) == 0);
    }
}

static void test_fx_quantisation(void)
{
    uint8_t buf[16];
    zl_bitwriter w;
    zl_bitreader r;
    zl_test_rng rng;
    int i;
    int64_t worst_ratio_num = 0, worst_ratio_den = 1;

    zl_test_rng_seed(&rng, 777);
    for (i = 0; i < ZL_TEST_ITERATIONS(50000); i++) {
        int32_t lo, hi, v, got, clamped;
        unsigned frac = zl_test_rng_u32(&rng) % 17u;
        int64_t step = (int64_t)1 << (16 - frac), err;
        rand_span(&rng, &lo, &hi);
        v = zl_test_rng_u32(&rng) % 4u == 0 ? rand_i32(&rng) : zl_test_rng_range(&rng, lo, hi);
        clamped = v < lo ? lo : v > hi ? hi : v;
        zl_bitwriter_init(&w, buf, sizeof buf);
        zl_bitwriter_fx(&w, v, lo, hi, frac);
        zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
        got = zl_bitreader_fx(&r, lo, hi, frac);
        err = (int64_t)got - clamped;
        if (err < 0)
            err = -err;
        if (err * worst_ratio_den > worst_ratio_num * step)
            worst_ratio_num = err, worst_ratio_den = step;
        if (!ZL_CHECK(2 * err <= step) || !ZL_CHECK(got >= lo && got <= hi) ||
            !ZL_CHECK_EQ(got, fx_expected(v, lo, hi, frac)) || !ZL_CHECK_EQ(r.error, ZL_OK))
            break;
    }
    zl_test_note("worst error %ld/1000 of a step (bound 500/1000)",
                 (long)(worst_ratio_num * 1000 / worst_ratio_den));

    /* Full range at full precision is exact and 32 bits. */
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_fx(&w, ZL_FX_MIN, ZL_FX_MIN, ZL_FX_MAX, 16);
    zl_bitwriter_fx(&w, ZL_FX_MAX, ZL_FX_MIN, ZL_FX_MAX, 16);
    zl_bitwriter_fx(&w, ZL_FX_MAX, ZL_FX_MIN, ZL_FX_MAX, 0);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 64 + 17);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK_EQ(zl_bitreader_fx(&r, ZL_FX_MIN, ZL_FX_MAX, 16), ZL_FX_MIN);
    ZL_CHECK_EQ(zl_bitreader_fx(&r, ZL_FX_MIN, ZL_FX_MAX, 16), ZL_FX_MAX);
    ZL_CHECK_EQ(zl_bitreader_fx(&r, ZL_FX_MIN, ZL_FX_MAX, 0), ZL_FX_MAX);

    /* [0, 1] in quarters: codes 0..4 in 3 bits; 5..7 are malformed. Clamped
     * writes come back as the ends. */
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_fx(&w, ZL_FX_INT(-5), 0, ZL_FX_ONE, 2);
    zl_bitwriter_fx(&w, ZL_FX_INT(5), 0, ZL_FX_ONE, 2);
    zl_bitwriter_fx(&w, ZL_FX_RATIO(3, 8), 0, ZL_FX_ONE, 2); /* a tie: rounds up */
    zl_bitwriter_bits(&w, 5, 3);
    zl_bitwriter_bits(&w, 7, 3);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 15);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK_EQ(zl_bitreader_fx(&r, 0, ZL_FX_ONE, 2), 0);
    ZL_CHECK_EQ(zl_bitreader_fx(&r, 0, ZL_FX_ONE, 2), ZL_FX_ONE);
    ZL_CHECK_EQ(zl_bitreader_fx(&r, 0, ZL_FX_ONE, 2), ZL_FX_HALF);
    ZL_CHECK_EQ(r.error, ZL_OK);
    ZL_CHECK_EQ(zl_bitreader_fx(&r, 0, ZL_FX_ONE, 2), 0);
    ZL_CHECK_EQ(r.error, ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(zl_bitreader_fx(&r, 0, ZL_FX_ONE, 2), 0);
}

void zl_suite_bits(void)
{
    ZL_RUN(test_golden_bytes);
    ZL_RUN(test_bits_required);
    ZL_RUN(test_random_round_trip);
    ZL_RUN(test_every_truncation);
    ZL_RUN(test_reader_odd_sizes);
    ZL_RUN(test_reader_overflow_sticky);
    ZL_RUN(test_writer_overflow);
    ZL_RUN(test_delta_sizes_and_extremes);
    ZL_RUN(test_ranged_extremes_and_malformed);
    ZL_RUN(test_fx_quantisation);
    ZL_RUN(test_copy);
    ZL_RUN(test_copy_at);
}
