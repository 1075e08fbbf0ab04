/* zl_chacha20_cortex_m3.c - ChaCha20's 20 rounds and a whole block's XOR in
 * Thumb-2 assembly for the Cortex-M3, which core calls (ZL_PORT_CHACHA20_*). */
#include "zl_base.h"

/* The contract of core's rounds(): x = the 20 rounds of state s, without
 * the final addition (zl_chacha20.c). 14 of the 16 words stay in
 * registers; words 8 and 9 take turns with 10 and 11 in one register
 * pair, the other pair waiting on the stack (two LDRD/STRD swaps a double
 * round). Rotations are applied lazily in the second operand of the next
 * instruction that reads a word (Thumb-2 rotates an operand for free):
 * words 4..7 are kept rotated right by 7 and 12..15 by 8 between quarter
 * rounds, so a quarter round is 8 instructions. No branch or address
 * depends on the state; the stack slots are zeroed before returning. */
void zl_port_chacha20_rounds(uint32_t x[16], const uint32_t s[16]);

/* One quarter round on registers a, b, c, d (b and d held rotated). */
#define QR(a, b, c, d)                          \
    "add " a ", " a ", " b ", ror #25\n\t"      \
    "eor " d ", " a ", " d ", ror #24\n\t"      \
    "add " c ", " c ", " d ", ror #16\n\t"      \
    "eor " b ", " c ", " b ", ror #25\n\t"      \
    "add " a ", " a ", " b ", ror #20\n\t"      \
    "eor " d ", " a ", " d ", ror #16\n\t"      \
    "add " c ", " c ", " d ", ror #24\n\t"      \
    "eor " b ", " c ", " b ", ror #20\n\t"

/* A function of its own at file scope (x in r0, s in r1). The ten double
 * rounds are unrolled (.rept): a loop's count would cost the Cortex-M3 four
 * instructions a double round, its register being on the stack. Stack
 * frame: [sp] words 8, 9; [sp, #8] words 10, 11; [sp, #16] x. */
__asm__(".text\n\t"
        ".syntax unified\n\t"
        ".thumb\n\t"
        ".align 2\n\t"
        ".global zl_port_chacha20_rounds\n\t"
        ".type zl_port_chacha20_rounds, %function\n\t"
        ".thumb_func\n"
        "zl_port_chacha20_rounds:\n\t"
        "push {r4-r11, lr}\n\t"
        "sub sp, sp, #20\n\t"
        "str r0, [sp, #16]\n\t"
        "ldrd r2, r3, [r1, #40]\n\t"
        "strd r2, r3, [sp, #8]\n\t"
        "ldrd r8, r9, [r1, #32]\n\t"
        "ldrd r10, r11, [r1, #48]\n\t"
        "ldr r12, [r1, #56]\n\t"
        "ldr lr, [r1, #60]\n\t"
        "ldm r1, {r0-r7}\n\t"
        "ror r4, r4, #7\n\t"
        "ror r5, r5, #7\n\t"
        "ror r6, r6, #7\n\t"
        "ror r7, r7, #7\n\t"
        "ror r10, r10, #8\n\t"
        "ror r11, r11, #8\n\t"
        "ror r12, r12, #8\n\t"
        "ror lr, lr, #8\n\t"
        ".rept 10\n\t"
        /* Columns: r8, r9 hold words 8, 9, then 10, 11. */
        QR("r0", "r4", "r8", "r10")
        QR("r1", "r5", "r9", "r11")
        "strd r8, r9, [sp]\n\t"
        "ldrd r8, r9, [sp, #8]\n\t"
        QR("r2", "r6", "r8", "r12")
        QR("r3", "r7", "r9", "lr")
        /* Diagonals: words 10, 11 first, then 8, 9. */
        QR("r0", "r5", "r8", "lr")
        QR("r1", "r6", "r9", "r10")
        "strd r8, r9, [sp, #8]\n\t"
        "ldrd r8, r9, [sp]\n\t"
        QR("r2", "r7", "r8", "r11")
        QR("r3", "r4", "r9", "r12")
        ".endr\n\t"
        /* Words 8..11 side by side on the stack, the rotations undone,
         * then x[0..7] and x[8..15] by two block stores. */
        "strd r8, r9, [sp]\n\t"
        "ldr r8, [sp, #16]\n\t"
        "ror r4, r4, #25\n\t"
        "ror r5, r5, #25\n\t"
        "ror r6, r6, #25\n\t"
        "ror r7, r7, #25\n\t"
        "ror r10, r10, #24\n\t"
        "ror r11, r11, #24\n\t"
        "ror r12, r12, #24\n\t"
        "ror lr, lr, #24\n\t"
        "stm r8!, {r0-r7}\n\t"
        "ldrd r0, r1, [sp]\n\t"
        "ldrd r2, r3, [sp, #8]\n\t"
        "stm r8, {r0-r3, r10-r12, lr}\n\t"
        "movs r0, #0\n\t"
        "movs r1, #0\n\t"
        "strd r0, r1, [sp]\n\t"
        "strd r0, r1, [sp, #8]\n\t"
        "add sp, sp, #20\n\t"
        "pop {r4-r11, pc}\n\t"
        ".size zl_port_chacha20_rounds, . - zl_port_chacha20_rounds\n\t");

/* The contract of core's xor_keystream() for a whole block: out = in XOR
 * (x + s), word by word, 64 bytes (zl_chacha20.c). x and s are word
 * arrays, read four words at a time (LDM); in and out may be unaligned
 * (single-word loads and stores, which the Cortex-M3 allows) and may be
 * the same buffer: each group of four words is read before it is written.
 * Unrolled (.rept) like the rounds. Registers r4..r11 hold key stream and
 * message; they are the caller's again on return. */
void zl_port_chacha20_xor(uint8_t out[64], const uint8_t in[64], const uint32_t x[16],
                          const uint32_t s[16]);

__asm__(".text\n\t"
        ".syntax unified\n\t"
        ".thumb\n\t"
        ".align 2\n\t"
        ".global zl_port_chacha20_xor\n\t"
        ".type zl_port_chacha20_xor, %function\n\t"
        ".thumb_func\n"
        "zl_port_chacha20_xor:\n\t"
        "push {r4-r11}\n\t"
        ".rept 4\n\t"
        "ldm r2!, {r4-r7}\n\t"
        "ldm r3!, {r8-r11}\n\t"
        "add r4, r4, r8\n\t"
        "add r5, r5, r9\n\t"
        "add r6, r6, r10\n\t"
        "add r7, r7, r11\n\t"
        "ldr r8, [r1]\n\t"
        "ldr r9, [r1, #4]\n\t"
        "ldr r10, [r1, #8]\n\t"
        "ldr r11, [r1, #12]\n\t"
        "add r1, r1, #16\n\t"
        "eor r4, r4, r8\n\t"
        "eor r5, r5, r9\n\t"
        "eor r6, r6, r10\n\t"
        "eor r7, r7, r11\n\t"
        "str r4, [r0]\n\t"
        "str r5, [r0, #4]\n\t"
        "str r6, [r0, #8]\n\t"
        "str r7, [r0, #12]\n\t"
        "add r0, r0, #16\n\t"
        ".endr\n\t"
        "pop {r4-r11}\n\t"
        "bx lr\n\t"
        ".size zl_port_chacha20_xor, . - zl_port_chacha20_xor\n\t");
