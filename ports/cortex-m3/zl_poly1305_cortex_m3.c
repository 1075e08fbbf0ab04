/* zl_poly1305_cortex_m3.c - Poly1305's arithmetic for the Cortex-M3 in radix
 * 2^32, its block loop in Thumb-2 assembly, which core calls (ZL_PORT_POLY1305). */
#include "zl_base.h"

#include "zl_bytes.h"

void zl_port_poly1305_set_r(uint32_t r[5], const uint8_t key[16]);
void zl_port_poly1305_absorb(uint32_t h[5], const uint32_t r[5], const uint8_t *m, size_t blocks,
                             uint32_t hibit);
void zl_port_poly1305_reduce(const uint32_t h[5], uint32_t out[4]);

/* r as four 32-bit words, clamped (RFC 8439 2.5): each below 2^28 and
 * words 1..3 multiples of 4, which the block loop relies on. r[4] unused. */
void zl_port_poly1305_set_r(uint32_t r[5], const uint8_t key[16])
{
    r[0] = zl_get_le32(key) & 0x0FFFFFFFu;
    r[1] = zl_get_le32(key + 4) & 0x0FFFFFFCu;
    r[2] = zl_get_le32(key + 8) & 0x0FFFFFFCu;
    r[3] = zl_get_le32(key + 12) & 0x0FFFFFFCu;
    r[4] = 0;
}

/* h (h0..h3 whole words, h4 at most 4 between blocks) = (h + m + hibit *
 * 2^128) * r mod 2^130 - 5, partly reduced, for each 16-byte block at m
 * (any alignment: single-word loads only). A product landing at 2^128 + k
 * folds back as 5/4 of itself at k: r1..r3 are multiples of 4, so s_j =
 * r_j + r_j / 4 is exact and below 2^29; each column is five products of a
 * word by a number below 2^29 (h4 by one: h4 < 8), below 2^64 with the
 * carry in. Column 4 is h4 * r0 plus the carry, below 2^32; what it holds
 * above 2 bits comes back times 5 into h0.
 *
 * Registers: h0..h4 in r0..r4, r0 of the key in r10, s2 in r11, s3 in lr;
 * columns accumulate in r5..r9; r12 takes the key words kept on the stack.
 * Frame: [sp] s1, [sp, #4] r1, [sp, #8] r2, [sp, #12] r3, [sp, #16] m,
 * [sp, #20] the end of m, [sp, #24] hibit, [sp, #28] h; hibit arrives at
 * [sp, #68] (above the frame and the 9 saved registers). No branch or
 * address depends on the data; the key's words are zeroed before
 * returning. */
__asm__(".text\n\t"
        ".syntax unified\n\t"
        ".thumb\n\t"
        ".align 2\n\t"
        ".global zl_port_poly1305_absorb\n\t"
        ".type zl_port_poly1305_absorb, %function\n\t"
        ".thumb_func\n"
        "zl_port_poly1305_absorb:\n\t"
        "cmp r3, #0\n\t"
        "beq.w 2f\n\t"
        "push {r4-r11, lr}\n\t"
        "sub sp, sp, #32\n\t"
        "str r0, [sp, #28]\n\t"
        "add r3, r2, r3, lsl #4\n\t"
        "strd r2, r3, [sp, #16]\n\t"
        "ldr r12, [sp, #68]\n\t"
        "str r12, [sp, #24]\n\t"
        "ldm r1, {r4-r7}\n\t"
        "mov r10, r4\n\t"
        "add r8, r5, r5, lsr #2\n\t"
        "add r11, r6, r6, lsr #2\n\t"
        "add lr, r7, r7, lsr #2\n\t"
        "strd r8, r5, [sp]\n\t"
        "strd r6, r7, [sp, #8]\n\t"
        "ldm r0, {r0-r4}\n\t"
        "1:\n\t"
        /* h += m + hibit * 2^128 */
        "ldr r12, [sp, #16]\n\t"
        "ldr r5, [r12]\n\t"
        "ldr r6, [r12, #4]\n\t"
        "ldr r7, [r12, #8]\n\t"
        "ldr r8, [r12, #12]\n\t"
        "add r12, r12, #16\n\t"
        "str r12, [sp, #16]\n\t"
        "ldr r12, [sp, #24]\n\t"
        "adds r0, r0, r5\n\t"
        "adcs r1, r1, r6\n\t"
        "adcs r2, r2, r7\n\t"
        "adcs r3, r3, r8\n\t"
        "adc r4, r4, r12\n\t"
        /* Column 0 in r5, r6: h0 r0 + h1 s3 + h2 s2 + h3 s1 */
        "umull r5, r6, r0, r10\n\t"
        "umlal r5, r6, r1, lr\n\t"
        "umlal r5, r6, r2, r11\n\t"
        "ldr r12, [sp]\n\t"
        "umlal r5, r6, r3, r12\n\t"
        /* Column 1 in r6, r7: h4 s1 + h1 r0 + h2 s3 + h3 s2 + h0 r1 */
        "mov r7, #0\n\t"
        "umlal r6, r7, r4, r12\n\t"
        "umlal r6, r7, r1, r10\n\t"
        "umlal r6, r7, r2, lr\n\t"
        "umlal r6, r7, r3, r11\n\t"
        "ldr r12, [sp, #4]\n\t"
        "umlal r6, r7, r0, r12\n\t"
        /* Column 2 in r7, r8: h1 r1 + h2 r0 + h3 s3 + h4 s2 + h0 r2 */
        "mov r8, #0\n\t"
        "umlal r7, r8, r1, r12\n\t"
        "umlal r7, r8, r2, r10\n\t"
        "umlal r7, r8, r3, lr\n\t"
        "umlal r7, r8, r4, r11\n\t"
        "ldr r12, [sp, #8]\n\t"
        "umlal r7, r8, r0, r12\n\t"
        /* Column 3 in r8, r9: h1 r2 + h3 r0 + h4 s3 + h2 r1 + h0 r3 */
        "mov r9, #0\n\t"
        "umlal r8, r9, r1, r12\n\t"
        "umlal r8, r9, r3, r10\n\t"
        "umlal r8, r9, r4, lr\n\t"
        "ldr r12, [sp, #4]\n\t"
        "umlal r8, r9, r2, r12\n\t"
        "ldr r12, [sp, #12]\n\t"
        "umlal r8, r9, r0, r12\n\t"
        /* Column 4: h4 r0 plus the carry; above 2 bits, times 5 into h0 */
        "mla r9, r4, r10, r9\n\t"
        "bic r12, r9, #3\n\t"
        "add r12, r12, r9, lsr #2\n\t"
        "and r9, r9, #3\n\t"
        "adds r0, r5, r12\n\t"
        "adcs r1, r6, #0\n\t"
        "adcs r2, r7, #0\n\t"
        "adcs r3, r8, #0\n\t"
        "adc r4, r9, #0\n\t"
        "ldrd r5, r6, [sp, #16]\n\t"
        "cmp r5, r6\n\t"
        "bne 1b\n\t"
        "ldr r12, [sp, #28]\n\t"
        "stm r12, {r0-r4}\n\t"
        "movs r0, #0\n\t"
        "movs r1, #0\n\t"
        "strd r0, r1, [sp]\n\t"
        "strd r0, r1, [sp, #8]\n\t"
        "add sp, sp, #32\n\t"
        "pop {r4-r11, lr}\n"
        "2:\n\t"
        "bx lr\n\t"
        ".size zl_port_poly1305_absorb, . - zl_port_poly1305_absorb\n\t");

/* h mod 2^130 - 5 as four words, least significant first: h4's bits above
 * 2 fold back times 5 (h is then at most 2^130 + 4, below 2p), then one
 * subtraction of p chosen by mask, not by branch: g = h + 5 reaches 2^130
 * exactly when h >= p, and then h - p is g's low 130 bits. */
void zl_port_poly1305_reduce(const uint32_t h[5], uint32_t out[4])
{
    uint32_t h0, h1, h2, h3, h4, g0, g1, g2, g3, g4, mask;
    uint64_t t;
    t = (uint64_t)h[0] + (h[4] >> 2) * 5u;
    h0 = (uint32_t)t;
    t = (t >> 32) + h[1];
    h1 = (uint32_t)t;
    t = (t >> 32) + h[2];
    h2 = (uint32_t)t;
    t = (t >> 32) + h[3];
    h3 = (uint32_t)t;
    h4 = (h[4] & 3u) + (uint32_t)(t >> 32);
    t = (uint64_t)h0 + 5u;
    g0 = (uint32_t)t;
    t = (t >> 32) + h1;
    g1 = (uint32_t)t;
    t = (t >> 32) + h2;
    g2 = (uint32_t)t;
    t = (t >> 32) + h3;
    g3 = (uint32_t)t;
    g4 = h4 + (uint32_t)(t >> 32);
    mask = 0u - (g4 >> 2); /* all ones when h >= p */
    out[0] = (h0 & ~mask) | (g0 & mask);
    out[1] = (h1 & ~mask) | (g1 & mask);
    out[2] = (h2 & ~mask) | (g2 & mask);
    out[3] = (h3 & ~mask) | (g3 & mask);
}
