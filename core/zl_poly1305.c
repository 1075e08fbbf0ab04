/* zl_poly1305.c - the Poly1305 one-time authenticator (RFC 8439): arithmetic
 * modulo 2^130 - 5 on 32-bit limbs with 32x32->64 multiplies, the same
 * operations whatever the key and message, and a final reduction by mask. */
#include "zl_crypto.h"

#include "zl_crypto_bytes.h"

void zl_poly1305_init(zl_poly1305 *p, const uint8_t key[ZL_POLY1305_KEY_SIZE])
{
    int i;
    ZL_ASSERT(p != NULL && key != NULL);
    /* Clamping clears the top 4 bits of every word of r and the low 2 bits
     * of words 1..3: products then stay inside 64 bits, and r1..r3 are
     * multiples of 4, which the reduction below relies on. */
    p->r[0] = load32_le(key) & 0x0FFFFFFFu;
    p->r[1] = load32_le(key + 4) & 0x0FFFFFFCu;
    p->r[2] = load32_le(key + 8) & 0x0FFFFFFCu;
    p->r[3] = load32_le(key + 12) & 0x0FFFFFFCu;
    for (i = 0; i < 4; i++)
        p->s[i] = load32_le(key + 16 + 4 * i);
    for (i = 0; i < 5; i++)
        p->h[i] = 0;
    p->used = 0;
}

/* h = (h + m + hibit * 2^128) * r mod 2^130 - 5, only partly reduced:
 * h stays below 5 * 2^128, so h4 is at most 4 on entry and 6 after the add. */
static void absorb(zl_poly1305 *p, const uint8_t m[16], uint32_t hibit)
{
    const uint32_t r0 = p->r[0], r1 = p->r[1], r2 = p->r[2], r3 = p->r[3];
    /* A product landing at 2^128 or above folds back down: 2^130 = 5 mod p,
     * so r_i * 2^128 = 5 * (r_i / 4) exactly, r_i being a multiple of 4.
     * Each fold is below 5 * 2^26: the sums below stay under 2^63. */
    const uint32_t f1 = (r1 >> 2) * 5u, f2 = (r2 >> 2) * 5u, f3 = (r3 >> 2) * 5u;
    uint32_t h0, h1, h2, h3, h4;
    uint64_t x0, x1, x2, x3, x4, t;

    t = (uint64_t)p->h[0] + load32_le(m);
    h0 = (uint32_t)t;
    t = (uint64_t)p->h[1] + load32_le(m + 4) + (t >> 32);
    h1 = (uint32_t)t;
    t = (uint64_t)p->h[2] + load32_le(m + 8) + (t >> 32);
    h2 = (uint32_t)t;
    t = (uint64_t)p->h[3] + load32_le(m + 12) + (t >> 32);
    h3 = (uint32_t)t;
    h4 = p->h[4] + (uint32_t)(t >> 32) + hibit;

    x0 = (uint64_t)h0 * r0 + (uint64_t)h1 * f3 + (uint64_t)h2 * f2 + (uint64_t)h3 * f1;
    x1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * f3 + (uint64_t)h3 * f2 +
         (uint64_t)h4 * f1;
    x2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 + (uint64_t)h3 * f3 +
         (uint64_t)h4 * f2;
    x3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 + (uint64_t)h3 * r0 +
         (uint64_t)h4 * f3;
    /* h4 * r0 sits at 2^128 itself: r0 is not a multiple of 4, so it is
     * carried up instead of folded. */
    x4 = (uint64_t)h4 * r0;

    /* Carry into 32-bit limbs; what reaches 2^130 folds back times 5. */
    x1 += x0 >> 32;
    x2 += x1 >> 32;
    x3 += x2 >> 32;
    x4 += x3 >> 32;
    t = (uint64_t)(uint32_t)x0 + (x4 >> 2) * 5u;
    p->h[0] = (uint32_t)t;
    t = (uint64_t)(uint32_t)x1 + (t >> 32);
    p->h[1] = (uint32_t)t;
    t = (uint64_t)(uint32_t)x2 + (t >> 32);
    p->h[2] = (uint32_t)t;
    t = (uint64_t)(uint32_t)x3 + (t >> 32);
    p->h[3] = (uint32_t)t;
    p->h[4] = ((uint32_t)x4 & 3u) + (uint32_t)(t >> 32);
}

void zl_poly1305_update(zl_poly1305 *p, const void *data, size_t len)
{
    const uint8_t *m = (const uint8_t *)data;
    ZL_ASSERT(p != NULL && (m != NULL || len == 0));
    if (p->used > 0) {
        while (len > 0 && p->used < 16) {
            p->buf[p->used++] = *m++;
            len--;
        }
        if (p->used < 16)
            return;
        absorb(p, p->buf, 1);
        p->used = 0;
    }
    for (; len >= 16; len -= 16, m += 16)
        absorb(p, m, 1);
    while (len > 0) {
        p->buf[p->used++] = *m++;
        len--;
    }
}

void zl_poly1305_final(zl_poly1305 *p, uint8_t tag[ZL_POLY1305_TAG_SIZE])
{
    uint32_t g[5], mask;
    uint64_t t;
    int i;
    ZL_ASSERT(p != NULL && tag != NULL);
    /* A last partial block ends with a 1 byte, then zeros, in place of
     * the 2^128 bit of a full block. */
    if (p->used > 0) {
        p->buf[p->used] = 1;
        for (i = (int)p->used + 1; i < 16; i++)
            p->buf[i] = 0;
        absorb(p, p->buf, 0);
    }
    /* h < 5 * 2^128 < 2p, so one conditional subtraction of p reduces it
     * fully: g = h + 5 reaches 2^130 exactly when h >= p, and then
     * h - p = g - 2^130. The choice is a mask, not a branch. */
    t = 5;
    for (i = 0; i < 4; i++) {
        t += p->h[i];
        g[i] = (uint32_t)t;
        t >>= 32;
    }
    g[4] = p->h[4] + (uint32_t)t;
    mask = 0u - (g[4] >> 2);
    /* The tag is (h mod p) + s mod 2^128: limb 4 drops out. */
    t = 0;
    for (i = 0; i < 4; i++) {
        t += (uint64_t)((p->h[i] & ~mask) | (g[i] & mask)) + p->s[i];
        store32_le(tag + 4 * i, (uint32_t)t);
        t >>= 32;
    }
    zl_crypto_wipe(g, sizeof g);
    zl_crypto_wipe(p, sizeof *p);
}
