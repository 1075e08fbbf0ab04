/* zl_poly1305.c - the Poly1305 one-time authenticator (RFC 8439): arithmetic
 * modulo 2^130 - 5 on five 26-bit limbs with 32x32->64 multiplies, the same
 * operations whatever the key and message, and a final reduction by mask. */
#include <string.h>

#include "zl_crypto.h"

#include "zl_bytes.h"

#define LIMB 0x3FFFFFFu /* 26 bits */

void zl_poly1305_init(zl_poly1305 *p, const uint8_t key[ZL_POLY1305_KEY_SIZE])
{
    uint32_t w0, w1, w2, w3;
    int i;
    ZL_ASSERT(p != NULL && key != NULL);
    /* Clamping clears the top 4 bits of every word of r and the low 2 bits
     * of words 1..3 (RFC 8439 2.5): r < 2^124, which bounds the products
     * below. Then r is cut into 26-bit limbs. */
    w0 = zl_get_le32(key) & 0x0FFFFFFFu;
    w1 = zl_get_le32(key + 4) & 0x0FFFFFFCu;
    w2 = zl_get_le32(key + 8) & 0x0FFFFFFCu;
    w3 = zl_get_le32(key + 12) & 0x0FFFFFFCu;
    p->r[0] = w0 & LIMB;
    p->r[1] = (w0 >> 26 | w1 << 6) & LIMB;
    p->r[2] = (w1 >> 20 | w2 << 12) & LIMB;
    p->r[3] = (w2 >> 14 | w3 << 18) & LIMB;
    p->r[4] = w3 >> 8;
    for (i = 0; i < 4; i++)
        p->s[i] = zl_get_le32(key + 16 + 4 * i);
    for (i = 0; i < 5; i++)
        p->h[i] = 0;
    p->used = 0;
}

/* h = (h + m + hibit * 2^128) * r mod 2^130 - 5 for each 16-byte block at
 * m, only partly reduced: limbs stay below 2^26 but h1, which may reach
 * 2^26 + 2^10 (the last carry below). */
static void absorb(zl_poly1305 *p, const uint8_t *m, size_t blocks, uint32_t hibit)
{
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
        h4 += m3 >> 8 | hibit;

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
        absorb(p, p->buf, 1, 1u << 24);
        p->used = 0;
    }
    whole = len / 16;
    if (whole > 0)
        absorb(p, m, whole, 1u << 24);
    if (len % 16 > 0) {
        memcpy(p->buf, m + whole * 16, len % 16);
        p->used = len % 16;
    }
}

void zl_poly1305_final(zl_poly1305 *p, uint8_t tag[ZL_POLY1305_TAG_SIZE])
{
    uint32_t h0, h1, h2, h3, h4, g0, g1, g2, g3, g4, mask, c;
    uint64_t t;
    ZL_ASSERT(p != NULL && tag != NULL);
    /* A last partial block ends with a 1 byte, then zeros, in place of
     * the 2^128 bit of a full block. */
    if (p->used > 0) {
        p->buf[p->used] = 1;
        memset(p->buf + p->used + 1, 0, 15 - p->used);
        absorb(p, p->buf, 1, 0);
    }
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
    /* The tag is (h mod p) + s mod 2^128: back to 32-bit words, bits of
     * limb 4 above 2^128 drop out. */
    t = (uint64_t)(h0 | h1 << 26) + p->s[0];
    zl_put_le32(tag, (uint32_t)t);
    t = (uint64_t)(h1 >> 6 | h2 << 20) + p->s[1] + (t >> 32);
    zl_put_le32(tag + 4, (uint32_t)t);
    t = (uint64_t)(h2 >> 12 | h3 << 14) + p->s[2] + (t >> 32);
    zl_put_le32(tag + 8, (uint32_t)t);
    t = (uint64_t)(h3 >> 18 | h4 << 8) + p->s[3] + (t >> 32);
    zl_put_le32(tag + 12, (uint32_t)t);
    zl_crypto_wipe(p, sizeof *p);
}
