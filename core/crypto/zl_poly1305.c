/* zl_poly1305.c - the Poly1305 one-time authenticator (RFC 8439): arithmetic
 * modulo 2^130 - 5 on 44-bit limbs where 64x64->128 multiplies exist, else
 * on 26-bit limbs with 32x32->64: the same operations whatever the key and
 * message, and a final reduction by mask. */
#include <string.h>

#include "zl_crypto.h"

#include "zl_bytes.h"

#ifdef ZL_POLY1305_WIDE
/* ---- Three 44-bit limbs (44, 44, 42 bits) with 64x64->128 products ---- */

__extension__ typedef unsigned __int128 wide;

#define M44 0xFFFFFFFFFFFull
#define M42 0x3FFFFFFFFFFull

static inline uint64_t get_le64(const uint8_t *p)
{
    return (uint64_t)zl_get_le32(p) | (uint64_t)zl_get_le32(p + 4) << 32;
}

/* The limb sums of a * b mod 2^130 - 5, added to d0..d2: limb products
 * landing at 2^132 or above fold back times 20 (2^130 = 5 mod p, and the
 * limbs' weights put them 2 bits higher), so b's limbs 1 and 2 come in also
 * times 20 (b1x20, b2x20). With a's limbs below 2^45 and b's below 2^44
 * (times 20 below 2^49), each product is below 2^94. */
#define ADD_PRODUCTS(d0, d1, d2, a0, a1, a2, b0, b1, b2, b1x20, b2x20) \
    do {                                                                \
        d0 += (wide)(a0) * (b0) + (wide)(a1) * (b2x20) + (wide)(a2) * (b1x20); \
        d1 += (wide)(a0) * (b1) + (wide)(a1) * (b0) + (wide)(a2) * (b2x20);   \
        d2 += (wide)(a0) * (b2) + (wide)(a1) * (b1) + (wide)(a2) * (b0);      \
    } while (0)

/* h = d0 + d1 2^44 + d2 2^88 (sums of at most six products) only partly
 * reduced: what passes 2^130 comes back times 5, and h1 may exceed 44 bits
 * by a little (the last carry). */
static inline void carry(uint64_t h[3], wide d0, wide d1, wide d2)
{
    uint64_t c, h0;
    c = (uint64_t)(d0 >> 44);
    h0 = (uint64_t)d0 & M44;
    d1 += c;
    c = (uint64_t)(d1 >> 44);
    h[1] = (uint64_t)d1 & M44;
    d2 += c;
    c = (uint64_t)(d2 >> 42);
    h[2] = (uint64_t)d2 & M42;
    h0 += c * 5u;
    h[0] = h0 & M44;
    h[1] += h0 >> 44;
}

/* Clamping clears the top 4 bits of every 32-bit word of r and the low 2
 * bits of words 1..3 (RFC 8439 2.5): r < 2^124, which bounds the products
 * below. Then r is cut into limbs, and r^2 kept beside it for two blocks
 * at a time. */
static void set_r(zl_poly1305 *p, const uint8_t key[16])
{
    uint64_t lo = get_le64(key) & 0x0FFFFFFC0FFFFFFFull;
    uint64_t hi = get_le64(key + 8) & 0x0FFFFFFC0FFFFFFCull;
    wide d0 = 0, d1 = 0, d2 = 0;
    p->r[0] = lo & M44;
    p->r[1] = (lo >> 44 | hi << 20) & M44;
    p->r[2] = hi >> 24;
    ADD_PRODUCTS(d0, d1, d2, p->r[0], p->r[1], p->r[2], p->r[0], p->r[1], p->r[2],
                 p->r[1] * 20u, p->r[2] * 20u);
    carry(p->rr, d0, d1, d2);
}

/* h = (h + m + hibit * 2^128) * r mod 2^130 - 5 for each 16-byte block at
 * m, only partly reduced (carry). hibit is 1 for full blocks, 0 for the
 * padded last one. Two blocks at a time as (h + m1) r^2 + m2 r: the
 * products of one pass are independent, where block by block each waits
 * for the last one's carries. */
static void absorb(zl_poly1305 *p, const uint8_t *m, size_t blocks, unsigned hibit)
{
    const uint64_t r0 = p->r[0], r1 = p->r[1], r2 = p->r[2];
    const uint64_t q0 = p->rr[0], q1 = p->rr[1], q2 = p->rr[2];
    /* r1, r2 are below 2^44, so 20 times them below 2^49; so are r^2's
     * limbs (h1's small excess included). */
    const uint64_t f1 = r1 * 20u, f2 = r2 * 20u, g1 = q1 * 20u, g2 = q2 * 20u;
    const uint64_t top = (uint64_t)hibit << 40;
    uint64_t h[3];
    wide d0, d1, d2;
    h[0] = p->h[0];
    h[1] = p->h[1];
    h[2] = p->h[2];
    for (; blocks >= 2; blocks -= 2, m += 32) {
        const uint64_t t0 = get_le64(m), t1 = get_le64(m + 8);
        const uint64_t u0 = get_le64(m + 16), u1 = get_le64(m + 24);
        /* Six products of limbs below 2^45 by numbers below 2^49: each
         * sum below 2^97. */
        d0 = d1 = d2 = 0;
        ADD_PRODUCTS(d0, d1, d2, h[0] + (t0 & M44), h[1] + ((t0 >> 44 | t1 << 20) & M44),
                     h[2] + (t1 >> 24 | top), q0, q1, q2, g1, g2);
        ADD_PRODUCTS(d0, d1, d2, u0 & M44, (u0 >> 44 | u1 << 20) & M44, u1 >> 24 | top, r0, r1,
                     r2, f1, f2);
        carry(h, d0, d1, d2);
    }
    if (blocks > 0) {
        const uint64_t t0 = get_le64(m), t1 = get_le64(m + 8);
        d0 = d1 = d2 = 0;
        ADD_PRODUCTS(d0, d1, d2, h[0] + (t0 & M44), h[1] + ((t0 >> 44 | t1 << 20) & M44),
                     h[2] + (t1 >> 24 | top), r0, r1, r2, f1, f2);
        carry(h, d0, d1, d2);
    }
    p->h[0] = h[0];
    p->h[1] = h[1];
    p->h[2] = h[2];
}

/* h mod p as four 32-bit words, least significant first. */
static void reduce(const zl_poly1305 *p, uint32_t out[4])
{
    uint64_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2], g0, g1, g2, c, mask;
    int pass;
    /* Carry fully: twice round, so that the excess carried into h0 by
     * the first fold has settled. */
    for (pass = 0; pass < 2; pass++) {
        c = h1 >> 44;
        h1 &= M44;
        h2 += c;
        c = h2 >> 42;
        h2 &= M42;
        h0 += c * 5u;
        c = h0 >> 44;
        h0 &= M44;
        h1 += c;
    }
    /* Now h < 2^130 < 2p, so one conditional subtraction of p reduces it
     * fully: g = h + 5 - 2^130 is not negative exactly when h >= p. The
     * choice is a mask, not a branch. */
    g0 = h0 + 5u;
    c = g0 >> 44;
    g0 &= M44;
    g1 = h1 + c;
    c = g1 >> 44;
    g1 &= M44;
    g2 = h2 + c - ((uint64_t)1 << 42);
    mask = (g2 >> 63) - 1u; /* all ones when g2 did not go negative */
    h0 = (h0 & ~mask) | (g0 & mask);
    h1 = (h1 & ~mask) | (g1 & mask);
    h2 = (h2 & ~mask) | (g2 & mask);
    /* Back to 32-bit words; bits above 2^128 drop out. */
    h0 |= h1 << 44;
    h1 = h1 >> 20 | h2 << 24;
    out[0] = (uint32_t)h0;
    out[1] = (uint32_t)(h0 >> 32);
    out[2] = (uint32_t)h1;
    out[3] = (uint32_t)(h1 >> 32);
}

#elif defined(ZL_PORT_POLY1305)
/* ---- The port's own limbs ----
 * A port may bring the arithmetic (assembly where the compiler spills):
 * its build defines ZL_PORT_POLY1305 and supplies these three functions on
 * zl_poly1305's five words of r and of h, in a radix of its choosing (h
 * starts at zero), with the contracts of set_r, absorb and reduce below,
 * proven by the same test vectors. */
void zl_port_poly1305_set_r(uint32_t r[5], const uint8_t key[16]);
void zl_port_poly1305_absorb(uint32_t h[5], const uint32_t r[5], const uint8_t *m, size_t blocks,
                             uint32_t hibit);
void zl_port_poly1305_reduce(const uint32_t h[5], uint32_t out[4]);
#define set_r(p, key) zl_port_poly1305_set_r((p)->r, key)
#define absorb(p, m, blocks, hibit) zl_port_poly1305_absorb((p)->h, (p)->r, m, blocks, hibit)
#define reduce(p, out) zl_port_poly1305_reduce((p)->h, out)

#else
/* ---- Five 26-bit limbs with 32x32->64 products ---- */

#define LIMB 0x3FFFFFFu /* 26 bits */

/* Clamping clears the top 4 bits of every word of r and the low 2 bits of
 * words 1..3 (RFC 8439 2.5): r < 2^124, which bounds the products below.
 * Then r is cut into 26-bit limbs. */
static void set_r(zl_poly1305 *p, const uint8_t key[16])
{
    uint32_t w0, w1, w2, w3;
    w0 = zl_get_le32(key) & 0x0FFFFFFFu;
    w1 = zl_get_le32(key + 4) & 0x0FFFFFFCu;
    w2 = zl_get_le32(key + 8) & 0x0FFFFFFCu;
    w3 = zl_get_le32(key + 12) & 0x0FFFFFFCu;
    p->r[0] = w0 & LIMB;
    p->r[1] = (w0 >> 26 | w1 << 6) & LIMB;
    p->r[2] = (w1 >> 20 | w2 << 12) & LIMB;
    p->r[3] = (w2 >> 14 | w3 << 18) & LIMB;
    p->r[4] = w3 >> 8;
}

/* h = (h + m + hibit * 2^128) * r mod 2^130 - 5 for each 16-byte block at
 * m, only partly reduced: limbs stay below 2^26 but h1, which may reach
 * 2^26 + 2^10 (the last carry below). hibit is 1 for a full block, 0 for
 * the padded last one. */
static void absorb(zl_poly1305 *p, const uint8_t *m, size_t blocks, unsigned hibit)
{
    const uint32_t top = (uint32_t)hibit << 24;
    const uint32_t r0 = p->r[0], r1 = p->r[1], r2 = p->r[2], r3 = p->r[3], r4 = p->r[4];
    /* A product landing at 2^130 or above folds back times 5 (2^130 = 5
     * mod p): limb i times limb j with i + j >= 5 uses 5 * r_j. r_j is
     * below 2^26, so 5 * r_j is below 2^29. */
    const uint32_t f1 = r1 * 5u, f2 = r2 * 5u, f3 = r3 * 5u, f4 = r4 * 5u;
    uint32_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2], h3 = p->h[3], h4 = p->h[4];
    uint64_t d0, d1, d2, d3, d4;
    for (; blocks > 0; blocks--, m += 16) {
        const uint32_t m0 = zl_get_le32(m), m1 = zl_get_le32(m + 4), m2 = zl_get_le32(m + 8),
                       m3 = zl_get_le32(m + 12);
        /* Each limb now below 2^27 + 2^10: five products of one by a
         * number below 2^29 sum below 2^59. */
        h0 += m0 & LIMB;
        h1 += (m0 >> 26 | m1 << 6) & LIMB;
        h2 += (m1 >> 20 | m2 << 12) & LIMB;
        h3 += (m2 >> 14 | m3 << 18) & LIMB;
        h4 += m3 >> 8 | top;

        d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * f4 + (uint64_t)h2 * f3 + (uint64_t)h3 * f2 +
             (uint64_t)h4 * f1;
        d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * f4 + (uint64_t)h3 * f3 +
             (uint64_t)h4 * f2;
        d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 + (uint64_t)h3 * f4 +
             (uint64_t)h4 * f3;
        d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 + (uint64_t)h3 * r0 +
             (uint64_t)h4 * f4;
        d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 + (uint64_t)h3 * r1 +
             (uint64_t)h4 * r0;

        /* Carry up the limbs; what passes 2^130 comes back times 5. d4's
         * carry is below 2^33, five times it below 2^36, so h1 gains at
         * most 2^10 from the last step. */
        d1 += d0 >> 26;
        d2 += d1 >> 26;
        d3 += d2 >> 26;
        d4 += d3 >> 26;
        d0 = ((uint32_t)d0 & LIMB) + (d4 >> 26) * 5u;
        h0 = (uint32_t)d0 & LIMB;
        h1 = ((uint32_t)d1 & LIMB) + (uint32_t)(d0 >> 26);
        h2 = (uint32_t)d2 & LIMB;
        h3 = (uint32_t)d3 & LIMB;
        h4 = (uint32_t)d4 & LIMB;
    }
    p->h[0] = h0;
    p->h[1] = h1;
    p->h[2] = h2;
    p->h[3] = h3;
    p->h[4] = h4;
}

/* h mod p as four 32-bit words, least significant first. */
static void reduce(const zl_poly1305 *p, uint32_t out[4])
{
    uint32_t h0, h1, h2, h3, h4, g0, g1, g2, g3, g4, mask, c;
    /* Carry fully. h was below 2^130 + 2^36 (h1's excess): when h4
     * carries, what is left above 2^130 is below 2^36, so h0's carry in
     * turn cannot push h1 to 2^26. Every limb ends below 2^26. */
    h0 = p->h[0];
    h1 = p->h[1];
    h2 = p->h[2];
    h3 = p->h[3];
    h4 = p->h[4];
    c = h1 >> 26;
    h1 &= LIMB;
    h2 += c;
    c = h2 >> 26;
    h2 &= LIMB;
    h3 += c;
    c = h3 >> 26;
    h3 &= LIMB;
    h4 += c;
    c = h4 >> 26;
    h4 &= LIMB;
    h0 += c * 5u;
    c = h0 >> 26;
    h0 &= LIMB;
    h1 += c;
    /* Now h < 2^130 < 2p, so one conditional subtraction of p reduces it fully:
     * g = h + 5 - 2^130 is not negative exactly when h >= p. The choice
     * is a mask, not a branch. */
    g0 = h0 + 5u;
    c = g0 >> 26;
    g0 &= LIMB;
    g1 = h1 + c;
    c = g1 >> 26;
    g1 &= LIMB;
    g2 = h2 + c;
    c = g2 >> 26;
    g2 &= LIMB;
    g3 = h3 + c;
    c = g3 >> 26;
    g3 &= LIMB;
    g4 = h4 + c - (1u << 26);
    mask = (g4 >> 31) - 1u; /* all ones when g4 did not go negative */
    h0 = (h0 & ~mask) | (g0 & mask);
    h1 = (h1 & ~mask) | (g1 & mask);
    h2 = (h2 & ~mask) | (g2 & mask);
    h3 = (h3 & ~mask) | (g3 & mask);
    h4 = (h4 & ~mask) | (g4 & mask);
    out[0] = h0 | h1 << 26;
    out[1] = h1 >> 6 | h2 << 20;
    out[2] = h2 >> 12 | h3 << 14;
    out[3] = h3 >> 18 | h4 << 8;
}
#endif

void zl_poly1305_init(zl_poly1305 *p, const uint8_t key[ZL_POLY1305_KEY_SIZE])
{
    int i;
    ZL_ASSERT(p != NULL && key != NULL);
    set_r(p, key);
    for (i = 0; i < 4; i++)
        p->s[i] = zl_get_le32(key + 16 + 4 * i);
    for (i = 0; i < ZL_POLY1305_LIMBS; i++)
        p->h[i] = 0;
    p->used = 0;
}

void zl_poly1305_update(zl_poly1305 *p, const void *data, size_t len)
{
    const uint8_t *m = (const uint8_t *)data;
    size_t take, whole;
    ZL_ASSERT(p != NULL && (m != NULL || len == 0));
    if (len == 0)
        return; /* m may be NULL, which memcpy must not see */
    if (p->used > 0) {
        take = len < 16 - p->used ? len : 16 - p->used;
        memcpy(p->buf + p->used, m, take);
        p->used += take;
        m += take;
        len -= take;
        if (p->used < 16)
            return;
        absorb(p, p->buf, 1, 1);
        p->used = 0;
    }
    whole = len / 16;
    if (whole > 0)
        absorb(p, m, whole, 1);
    if (len % 16 > 0) {
        memcpy(p->buf, m + whole * 16, len % 16);
        p->used = len % 16;
    }
}

void zl_poly1305_final(zl_poly1305 *p, uint8_t tag[ZL_POLY1305_TAG_SIZE])
{
    uint32_t h[4];
    uint64_t t = 0;
    int i;
    ZL_ASSERT(p != NULL && tag != NULL);
    /* A last partial block ends with a 1 byte, then zeros, in place of
     * the 2^128 bit of a full block. */
    if (p->used > 0) {
        p->buf[p->used] = 1;
        memset(p->buf + p->used + 1, 0, 15 - p->used);
        absorb(p, p->buf, 1, 0);
    }
    /* The tag is (h mod p) + s mod 2^128. */
    reduce(p, h);
    for (i = 0; i < 4; i++) {
        t = (uint64_t)h[i] + p->s[i] + (t >> 32);
        zl_put_le32(tag + 4 * i, (uint32_t)t);
    }
    zl_crypto_wipe(h, sizeof h);
    zl_crypto_wipe(p, sizeof *p);
}
