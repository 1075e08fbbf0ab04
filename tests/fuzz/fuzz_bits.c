/* fuzz_bits.c - libFuzzer harness for the bit reader: the input's first bytes
 * are a small program of reads, the rest is the hostile buffer they read. */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_bits.h"

/* The program: bytes handed out in order, 0 once used up. */
typedef struct program {
    const uint8_t *p;
    size_t n;
} program;

static uint8_t next_u8(program *pg)
{
    if (pg->n == 0)
        return 0;
    pg->n--;
    return *pg->p++;
}

static int32_t next_i32(program *pg)
{
    uint32_t u = 0;
    int i;
    for (i = 0; i < 4; i++)
        u |= (uint32_t)next_u8(pg) << (8 * i);
    return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

static void span(program *pg, int32_t *min, int32_t *max)
{
    int32_t a = next_i32(pg), b = next_i32(pg);
    *min = a < b ? a : b;
    *max = a < b ? b : a;
}

/* Writing what was read and reading it again must give it back: the
 * reader never produces a value the writer cannot express. */
static void check_ranged_again(int32_t v, int32_t min, int32_t max)
{
    uint8_t buf[8];
    zl_bitwriter w;
    zl_bitreader r;
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_ranged(&w, v, min, max);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    REQUIRE(zl_bitreader_ranged(&r, min, max) == v && r.error == ZL_OK);
}

static void check_delta_again(int32_t v, uint32_t bits_read)
{
    uint8_t buf[8];
    zl_bitwriter w;
    zl_bitreader r;
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_delta(&w, v);
    /* The writer picks the shortest class; the input may have used a wider one. */
    REQUIRE(zl_bitwriter_bits_used(&w) <= bits_read);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    REQUIRE(zl_bitreader_delta(&r) == v && r.error == ZL_OK);
}

static void check_fx_again(zl_fx v, zl_fx min, zl_fx max, unsigned frac)
{
    uint8_t buf[8];
    zl_bitwriter w;
    zl_bitreader r;
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_fx(&w, v, min, max, frac);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    REQUIRE(zl_bitreader_fx(&r, min, max, frac) == v && r.error == ZL_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    program pg;
    zl_bitreader r;
    size_t plen;
    int steps;
    if (size == 0)
        return 0;
    /* Byte 0 is the program length; the buffer is what follows the program,
     * and it ends where the input does, so any read past it is caught. */
    plen = data[0];
    if (plen > size - 1)
        plen = size - 1;
    pg.p = data + 1;
    pg.n = plen;
    zl_bitreader_init(&r, data + 1 + plen, size - 1 - plen);

    for (steps = 0; pg.n > 0 && steps < 256; steps++) {
        uint32_t left = zl_bitreader_bits_left(&r);
        int err = r.error;
        int32_t min, max, v;
        uint8_t op = next_u8(&pg);
        switch (op % 8u) {
        case 0: {
            unsigned n = next_u8(&pg) % 33u;
            uint32_t u = zl_bitreader_bits(&r, n);
            REQUIRE(n == 32 || (u >> n) == 0);
            REQUIRE(r.error != ZL_OK ? u == 0 : zl_bitreader_bits_left(&r) == left - n);
            break;
        }
        case 1:
            v = zl_bitreader_bool(&r);
            REQUIRE(v == 0 || (v == 1 && r.error == ZL_OK));
            break;
        case 2: /* any range, often huge */
            span(&pg, &min, &max);
            v = zl_bitreader_ranged(&r, min, max);
            REQUIRE(v >= min && v <= max);
            if (r.error != ZL_OK)
                REQUIRE(v == min);
            else
                check_ranged_again(v, min, max);
            break;
        case 3: { /* a small range, where malformed codes are common */
            min = (int32_t)next_u8(&pg) - 128;
            max = min + next_u8(&pg) % 50;
            v = zl_bitreader_ranged(&r, min, max);
            REQUIRE(v >= min && v <= max);
            REQUIRE(r.error == ZL_OK || v == min);
            break;
        }
        case 4:
            v = zl_bitreader_delta(&r);
            if (r.error != ZL_OK)
                REQUIRE(v == 0);
            else
                check_delta_again(v, left - zl_bitreader_bits_left(&r));
            break;
        case 5: {
            unsigned frac = next_u8(&pg) % 17u;
            span(&pg, &min, &max);
            v = zl_bitreader_fx(&r, min, max, frac);
            REQUIRE(v >= min && v <= max);
            if (r.error != ZL_OK)
                REQUIRE(v == min);
            else
                check_fx_again(v, min, max, frac);
            break;
        }
        case 6: {
            uint8_t dst[40];
            size_t n = next_u8(&pg) % (sizeof dst + 1), i;
            zl_bitreader_bytes(&r, dst, n);
            if (r.error != ZL_OK)
                for (i = 0; i < n; i++)
                    REQUIRE(dst[i] == 0);
            break;
        }
        default:
            zl_bitreader_align(&r);
            REQUIRE(zl_bitreader_bits_left(&r) % 8u == 0);
            break;
        }
        /* Invariants of every read. */
        REQUIRE(r.error == ZL_OK || r.error == ZL_ERR_OVERFLOW || r.error == ZL_ERR_MALFORMED);
        REQUIRE(err == ZL_OK || r.error == err);
        REQUIRE(zl_bitreader_bits_left(&r) <= left);
        REQUIRE(r.error == ZL_OK || zl_bitreader_bits_left(&r) == 0);
    }
    return 0;
}
