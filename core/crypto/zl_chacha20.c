/* zl_chacha20.c - the ChaCha20 stream cipher (RFC 8439) and HChaCha20, its
 * key derivation for 24-byte nonces: additions, XORs and fixed rotations on
 * 32-bit words, so the time never depends on the key. */
#include <string.h>

#include "zl_crypto.h"

#include "zl_bytes.h"

/* No cast: the same text rotates a uint32_t and a vector of them. */
#define ROTL(x, n) ((x) << (n) | (x) >> (32 - (n)))

/* Rotations by 16 and by 8 of a word; vectors may do them by shuffling
 * bytes (below). */
#define ROT16_WORD(x) ROTL(x, 16)
#define ROT8_WORD(x) ROTL(x, 8)

/* One quarter round on words a, b, c, d of x: an array of uint32_t, or
 * of vectors of them (below): the same text works on both, with rot16 and
 * rot8 the rotations by 16 and 8 for the kind. */
#define QUARTER(x, a, b, c, d, rot16, rot8) \
    do {                                    \
        x[a] += x[b];                       \
        x[d] = rot16(x[d] ^ x[a]);          \
        x[c] += x[d];                       \
        x[b] = ROTL(x[b] ^ x[c], 12);       \
        x[a] += x[b];                       \
        x[d] = rot8(x[d] ^ x[a]);           \
        x[c] += x[d];                       \
        x[b] = ROTL(x[b] ^ x[c], 7);        \
    } while (0)

/* Two of the 20 rounds on x[0..15] in place: a column round, then a
 * diagonal round. */
#define DOUBLE_ROUND(x, rot16, rot8)             \
    do {                                         \
        QUARTER(x, 0, 4, 8, 12, rot16, rot8);    \
        QUARTER(x, 1, 5, 9, 13, rot16, rot8);    \
        QUARTER(x, 2, 6, 10, 14, rot16, rot8);   \
        QUARTER(x, 3, 7, 11, 15, rot16, rot8);   \
        QUARTER(x, 0, 5, 10, 15, rot16, rot8);   \
        QUARTER(x, 1, 6, 11, 12, rot16, rot8);   \
        QUARTER(x, 2, 7, 8, 13, rot16, rot8);    \
        QUARTER(x, 3, 4, 9, 14, rot16, rot8);    \
    } while (0)

/* Words 0..11 of the state: "expand 32-byte k" and the key. */
static void set_key(uint32_t s[16], const uint8_t key[ZL_CHACHA20_KEY_SIZE])
{
    int i;
    s[0] = 0x61707865u;
    s[1] = 0x3320646Eu;
    s[2] = 0x79622D32u;
    s[3] = 0x6B206574u;
    for (i = 0; i < 8; i++)
        s[4 + i] = zl_get_le32(key + 4 * i);
}

/* The 20 rounds of the state s into x, without the final addition. A
 * port may bring its own (assembly where the compiler spills): its build
 * defines ZL_PORT_CHACHA20_ROUNDS and supplies zl_port_chacha20_rounds
 * with this contract, proven by the same test vectors. */
#ifdef ZL_PORT_CHACHA20_ROUNDS
void zl_port_chacha20_rounds(uint32_t x[16], const uint32_t s[16]);
#define rounds zl_port_chacha20_rounds
#else
static void rounds(uint32_t x[16], const uint32_t s[16])
{
    /* memcpy: a block copy (LDM/STM on ARM), where a loop of words costs
     * the Cortex-M3 four instructions a word. */
    int i;
    memcpy(x, s, 16 * sizeof x[0]);
    for (i = 0; i < 10; i++)
        DOUBLE_ROUND(x, ROT16_WORD, ROT8_WORD);
}
#endif

/* A port may bring the XOR of a whole block too (ZL_PORT_CHACHA20_XOR):
 * zl_port_chacha20_xor, with the contract of xor_keystream below for n of
 * 64, proven by the same test vectors. */
#ifdef ZL_PORT_CHACHA20_XOR
void zl_port_chacha20_xor(uint8_t out[64], const uint8_t in[64], const uint32_t x[16],
                          const uint32_t s[16]);
#endif

/* XORs n bytes (at most a block) at in with a keystream block: the rounds'
 * output x plus the state they started from, which is what makes the block
 * function impossible to run backwards. Whole words first, then the odd
 * bytes of a last partial word one by one. Each input word is read before
 * its output word is written, so out == in works. */
static void xor_keystream(uint8_t *out, const uint8_t *in, const uint32_t x[16],
                          const uint32_t state[16], size_t n)
{
    size_t i, words = n / 4;
    uint32_t k;
#ifdef ZL_PORT_CHACHA20_XOR
    if (n == ZL_CHACHA20_BLOCK_SIZE) {
        zl_port_chacha20_xor(out, in, x, state);
        return;
    }
#endif
    for (i = 0; i < words; i++) {
        k = x[i] + state[i];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        {
            /* The word's bytes are in wire order already: one load and
             * one store rather than four of each, which compilers do not
             * merge. */
            uint32_t w;
            memcpy(&w, in + 4 * i, 4);
            w ^= k;
            memcpy(out + 4 * i, &w, 4);
        }
#else
        zl_put_le32(out + 4 * i, zl_get_le32(in + 4 * i) ^ k);
#endif
    }
    if (4 * words == n)
        return;
    k = x[words] + state[words];
    for (i = 4 * words; i < n; i++, k >>= 8)
        out[i] = (uint8_t)(in[i] ^ (uint8_t)k);
}

/* Several blocks at once where the compiler offers 128-bit integer vectors
 * in hardware: lane j of vector xi is word i of block counter + j, so the
 * rounds run on four blocks with the scalar text. Integer lanes only (no
 * float instruction can come of it). x86-64 always has SSE2; the host's
 * core is built with -mgeneral-regs-only (the no-float proof), so the
 * functions that need the vector registers ask for them by attribute. A
 * vector's lanes are stored as little-endian words, the keystream's byte
 * order, so only little-endian targets take this path. */
#if defined(ZL_CRYPTO_PORTABLE) || !defined(__BYTE_ORDER__) || \
    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
/* One block at a time (zl_crypto.h). */
#elif defined(__GNUC__) && defined(__x86_64__)
#define LANES 4
#define VECTOR_FN __attribute__((target("sse2")))
#elif defined(__GNUC__) && defined(__ARM_NEON)
#define LANES 4
#define VECTOR_FN
#endif

#ifdef LANES
/* A pass: four blocks in vectors and one in words (xor_pass). */
#define PASS_BLOCKS (LANES + 1)
/* zl_chacha20_head's buffer holds block 0 and the rest of a pass. */
ZL_STATIC_ASSERT((PASS_BLOCKS - 1) * ZL_CHACHA20_BLOCK_SIZE <= ZL_CHACHA20_HEAD_MAX, head_holds_pass);

/* The wide passes' helpers, built into each caller with its instructions
 * (VEX-encoded in the AVX2 pass). Called as functions, a pass that
 * followed another measured two to four times its cost on an AVX-512
 * host: legacy SSE code running among 256-bit code can stall so. */
#define PASS_HELPER VECTOR_FN __attribute__((always_inline)) static inline

typedef uint32_t lanes __attribute__((vector_size(16)));
typedef uint16_t halves __attribute__((vector_size(16)));

/* Swapping the 16-bit halves of each lane is one shuffle of 16-bit lanes
 * (two instructions on SSE2) where shifts and an OR take four. */
#define ROT16_LANES(x) ((lanes)__builtin_shufflevector((halves)(x), (halves)(x), 1, 0, 3, 2, 5, 4, 7, 6))

/* Turns v[i..i+3] (words i..i+3 of the four blocks, block j in lane j)
 * into t[0..3]: words i..i+3 of block j in t[j], 16 bytes of its stream. */
#define TRANSPOSE(t, v, i)                                                      \
    do {                                                                        \
        lanes lo0_ = __builtin_shufflevector(v[i], v[i + 1], 0, 4, 1, 5);       \
        lanes hi0_ = __builtin_shufflevector(v[i], v[i + 1], 2, 6, 3, 7);       \
        lanes lo1_ = __builtin_shufflevector(v[i + 2], v[i + 3], 0, 4, 1, 5);   \
        lanes hi1_ = __builtin_shufflevector(v[i + 2], v[i + 3], 2, 6, 3, 7);   \
        t[0] = __builtin_shufflevector(lo0_, lo1_, 0, 1, 4, 5);                 \
        t[1] = __builtin_shufflevector(lo0_, lo1_, 2, 3, 6, 7);                 \
        t[2] = __builtin_shufflevector(hi0_, hi1_, 0, 1, 4, 5);                 \
        t[3] = __builtin_shufflevector(hi0_, hi1_, 2, 3, 6, 7);                 \
    } while (0)

/* XORs n bytes at in with the keystream blocks ks[0..], each four
 * vectors of 16 bytes in order, into out (out == in works); a last partial
 * block goes through a buffer. */
PASS_HELPER void xor_blocks(uint8_t *out, const uint8_t *in, size_t n, lanes ks[][4])
{
    uint8_t tail[ZL_CHACHA20_BLOCK_SIZE];
    size_t i, j, whole = n / ZL_CHACHA20_BLOCK_SIZE, rest = n % ZL_CHACHA20_BLOCK_SIZE;
    lanes m;
    for (j = 0; j < whole; j++, in += ZL_CHACHA20_BLOCK_SIZE, out += ZL_CHACHA20_BLOCK_SIZE) {
        for (i = 0; i < 4; i++) {
            __builtin_memcpy(&m, in + 16 * i, 16);
            m ^= ks[j][i];
            __builtin_memcpy(out + 16 * i, &m, 16);
        }
    }
    if (rest > 0) {
        __builtin_memcpy(tail, in, rest);
        for (i = 0; i < 4; i++) {
            __builtin_memcpy(&m, tail + 16 * i, 16);
            m ^= ks[whole][i];
            __builtin_memcpy(tail + 16 * i, &m, 16);
        }
        __builtin_memcpy(out, tail, rest);
        zl_crypto_wipe(tail, sizeof tail);
    }
}

/* The rounds of a pass: the vectors v (of any width) from start, and
 * beside them in the same loop the words x, where the scalar units would
 * otherwise wait on the vector ones; then start added to v. */
#define PASS_ROUNDS(v, start, x, rot16, rot8)             \
    do {                                                  \
        size_t r_;                                        \
        for (r_ = 0; r_ < 16; r_++)                       \
            v[r_] = start[r_];                            \
        for (r_ = 0; r_ < 10; r_++) {                     \
            DOUBLE_ROUND(v, rot16, rot8);                 \
            DOUBLE_ROUND(x, ROT16_WORD, ROT8_WORD);       \
        }                                                 \
        for (r_ = 0; r_ < 16; r_++)                       \
            v[r_] += start[r_];                           \
    } while (0)

/* The keystream block of a pass's words x, which started from state with
 * its counter `ahead` on, as four vectors of 16 bytes. */
PASS_HELPER void word_block(lanes b[4], uint32_t x[16], const uint32_t state[16],
                            uint32_t ahead)
{
    size_t i;
    x[12] += ahead;
    for (i = 0; i < 4; i++)
        b[i] = (lanes){x[4 * i] + state[4 * i], x[4 * i + 1] + state[4 * i + 1],
                       x[4 * i + 2] + state[4 * i + 2], x[4 * i + 3] + state[4 * i + 3]};
}

/* XORs n bytes (at most PASS_BLOCKS) at in with the keystream of blocks
 * state[12] to state[12] + 4 (wrapping past 2^32 only in blocks the caller
 * then does not use): the first four in vectors, vector i holding word i of
 * the four, the fifth in words in the same loop, where the scalar units
 * would otherwise wait on the vector ones. */
VECTOR_FN static void xor_pass(uint8_t *out, const uint8_t *in, const uint32_t state[16],
                               size_t n)
{
    const lanes step = {0, 1, 2, 3};
    lanes v[16], start[16], block[PASS_BLOCKS][4], t[4];
    uint32_t x[16];
    size_t i, j;
    for (i = 0; i < 16; i++) {
        start[i] = (lanes){state[i], state[i], state[i], state[i]};
        x[i] = state[i];
    }
    start[12] += step;
    x[12] += LANES;
    PASS_ROUNDS(v, start, x, ROT16_LANES, ROT8_WORD);
    for (i = 0; i < 4; i++) {
        TRANSPOSE(t, v, 4 * i);
        for (j = 0; j < LANES; j++)
            block[j][i] = t[j];
    }
    word_block(block[LANES], x, state, LANES);
    xor_blocks(out, in, n, block);
    zl_crypto_wipe(block, sizeof block);
    zl_crypto_wipe(x, sizeof x);
}

/* The rounds of a heads pass: the vectors v from start, then start added,
 * with no word block beside them (each lane is another packet's). */
#define LANE_ROUNDS(v, start, rot16, rot8)        \
    do {                                          \
        size_t r_;                                \
        for (r_ = 0; r_ < 16; r_++)               \
            v[r_] = start[r_];                    \
        for (r_ = 0; r_ < 10; r_++)               \
            DOUBLE_ROUND(v, rot16, rot8);         \
        for (r_ = 0; r_ < 16; r_++)               \
            v[r_] += start[r_];                   \
    } while (0)

/* zl_aead_ahead_make for a[0..n-1], n at most LANES: packet j in lane j
 * (lanes past n repeat packet 0, their output unused), blocks 0 then 1.
 * Returns n. */
VECTOR_FN static size_t heads_pass(zl_aead_ahead *a, size_t n)
{
    zl_chacha20 c[LANES];
    lanes v[16], start[16], t[4];
    size_t i, j, b;
    for (j = 0; j < LANES; j++)
        zl_chacha20_start(&c[j], a[j < n ? j : 0].key, a[j < n ? j : 0].nonce, 0);
    for (i = 0; i < 16; i++)
        start[i] = (lanes){c[0].state[i], c[1].state[i], c[2].state[i], c[3].state[i]};
    for (b = 0; b < 2; b++, start[12] += 1) {
        LANE_ROUNDS(v, start, ROT16_LANES, ROT8_WORD);
        for (i = 0; i < 4; i++) {
            TRANSPOSE(t, v, 4 * i);
            for (j = 0; j < n; j++)
                __builtin_memcpy(a[j].head + ZL_CHACHA20_BLOCK_SIZE * b + 16 * i, &t[j], 16);
        }
    }
    zl_crypto_wipe(c, sizeof c);
    zl_crypto_wipe(v, sizeof v);
    zl_crypto_wipe(start, sizeof start);
    zl_crypto_wipe(t, sizeof t);
    return n;
}

/* Takes lane l's keystream block b, four vectors of 16 bytes: block 0's
 * first half is the Poly1305 key, block b > 0 is XORed with l's payload
 * bytes from 64 * (b - 1), if any are left. */
PASS_HELPER void lane_take(zl_aead_lane *l, size_t b, lanes ks[4])
{
    size_t at = ZL_CHACHA20_BLOCK_SIZE * (b - 1), n;
    if (b == 0) {
        __builtin_memcpy(l->poly_key, ks, ZL_POLY1305_KEY_SIZE);
        return;
    }
    if (at >= l->len)
        return;
    n = l->len - at < ZL_CHACHA20_BLOCK_SIZE ? l->len - at : ZL_CHACHA20_BLOCK_SIZE;
    xor_blocks(l->out + at, l->in + at, n, (lanes(*)[4])ks);
}

/* lane_take for l[0..n-1], lane j's block in ks[j]. */
PASS_HELPER void lanes_take(zl_aead_lane *l, size_t n, size_t b, lanes ks[][4])
{
    size_t j;
    for (j = 0; j < n; j++)
        lane_take(&l[j], b, ks[j]);
}

/* Block 0 and the payload's blocks of the longest of l[0..n-1]. */
static size_t lane_blocks(const zl_aead_lane *l, size_t n)
{
    size_t j, most = 0;
    for (j = 0; j < n; j++)
        if (l[j].len > most)
            most = l[j].len;
    return 1 + (most + ZL_CHACHA20_BLOCK_SIZE - 1) / ZL_CHACHA20_BLOCK_SIZE;
}

/* zl_aead_lanes_xor for l[0..n-1], n at most LANES: packet j in lane j
 * (lanes past n repeat packet 0, their output unused), one pass a block
 * index. Returns n. */
VECTOR_FN static size_t lanes_pass(zl_aead_lane *l, size_t n)
{
    zl_chacha20 c[LANES];
    struct {
        lanes v[16], start[16], t[4], ks[LANES][4];
    } w; /* secret: one wipe */
    size_t i, j, b, blocks = lane_blocks(l, n);
    for (j = 0; j < LANES; j++)
        zl_chacha20_start(&c[j], l[j < n ? j : 0].key, l[j < n ? j : 0].nonce, 0);
    for (i = 0; i < 16; i++)
        w.start[i] = (lanes){c[0].state[i], c[1].state[i], c[2].state[i], c[3].state[i]};
    zl_crypto_wipe(c, sizeof c);
    for (b = 0; b < blocks; b++, w.start[12] += 1) {
        LANE_ROUNDS(w.v, w.start, ROT16_LANES, ROT8_WORD);
        for (i = 0; i < 4; i++) {
            TRANSPOSE(w.t, w.v, 4 * i);
            for (j = 0; j < LANES; j++)
                w.ks[j][i] = w.t[j];
        }
        lanes_take(l, n, b, w.ks);
    }
    zl_crypto_wipe(&w, sizeof w);
    return n;
}
#endif

/* Eight blocks at once in 256-bit integer lanes where the CPU has AVX2,
 * which only some x86-64 CPUs do: these functions alone are built for it
 * (by attribute), and path() below asks the CPU before any of them runs;
 * so are the 512-bit path's, for CPUs with AVX-512F and VL. (Two blocks side by side, a row of each in a vector, cost here what two
 * blocks in words do: the rounds are one chain of dependent steps, where
 * words run four quarter rounds at once.) */
#ifdef ZL_CHACHA20_AVX2
#define AVX2_FN __attribute__((target("avx2")))
/* The 512-bit path's functions: AVX-512F for the 512-bit lanes, VL for
 * its instructions on 256-bit ones. */
#define VL512_FN __attribute__((target("avx2,avx512f,avx512vl")))
/* A pass: eight blocks in vectors and one in words (xor_pass8). */
#define PASS8_BLOCKS 9
ZL_STATIC_ASSERT((PASS8_BLOCKS - 1) * ZL_CHACHA20_BLOCK_SIZE <= ZL_CHACHA20_HEAD_MAX,
                 head_holds_pass8);

typedef uint32_t lanes8 __attribute__((vector_size(32)));
typedef uint8_t bytes32 __attribute__((vector_size(32)));

/* Rotations by 16 and 8 move whole bytes: one byte shuffle each. */
#define ROT16_LANES8(x)                                                                       \
    ((lanes8)__builtin_shufflevector((bytes32)(x), (bytes32)(x), 2, 3, 0, 1, 6, 7, 4, 5, 10,  \
                                     11, 8, 9, 14, 15, 12, 13, 18, 19, 16, 17, 22, 23, 20, 21, \
                                     26, 27, 24, 25, 30, 31, 28, 29))
#define ROT8_LANES8(x)                                                                       \
    ((lanes8)__builtin_shufflevector((bytes32)(x), (bytes32)(x), 3, 0, 1, 2, 7, 4, 5, 6, 11, \
                                     8, 9, 10, 15, 12, 13, 14, 19, 16, 17, 18, 23, 20, 21, 22, \
                                     27, 24, 25, 26, 31, 28, 29, 30))

/* The low and high 16 bytes of a 256-bit vector. */
#define LOW(y) __builtin_shufflevector(y, y, 0, 1, 2, 3)
#define HIGH(y) __builtin_shufflevector(y, y, 4, 5, 6, 7)

/* Turns v[i..i+3] (words i..i+3 of eight blocks, block j in lane j) into
 * t[0..3]: words i..i+3 of block j in the low half of t[j], of block j + 4
 * in its high half (each 128-bit half transposed as TRANSPOSE does). */
#define TRANSPOSE8(t, v, i)                                                                 \
    do {                                                                                    \
        lanes8 lo0_ = __builtin_shufflevector(v[i], v[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);     \
        lanes8 hi0_ = __builtin_shufflevector(v[i], v[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);   \
        lanes8 lo1_ = __builtin_shufflevector(v[i + 2], v[i + 3], 0, 8, 1, 9, 4, 12, 5, 13); \
        lanes8 hi1_ = __builtin_shufflevector(v[i + 2], v[i + 3], 2, 10, 3, 11, 6, 14, 7, 15); \
        t[0] = __builtin_shufflevector(lo0_, lo1_, 0, 1, 8, 9, 4, 5, 12, 13);               \
        t[1] = __builtin_shufflevector(lo0_, lo1_, 2, 3, 10, 11, 6, 7, 14, 15);             \
        t[2] = __builtin_shufflevector(hi0_, hi1_, 0, 1, 8, 9, 4, 5, 12, 13);               \
        t[3] = __builtin_shufflevector(hi0_, hi1_, 2, 3, 10, 11, 6, 7, 14, 15);             \
    } while (0)

typedef uint64_t quads8 __attribute__((vector_size(32)));

/* The 64-bit word at p, in memory order (this path is little-endian). */
PASS_HELPER uint64_t quad_at(const uint8_t *p)
{
    uint64_t q;
    __builtin_memcpy(&q, p, 8);
    return q;
}

/* The block-0 states of eight packets, key[j] and nonce[j] (lane j): word
 * i of each in start[i]. Built in registers from 64-bit loads and
 * transposes: words stored one by one and read back as a vector would wait
 * for the stores to reach the cache, the pass's dearest step. */
PASS_HELPER void start8(lanes8 start[16], const uint8_t *const key[8],
                        const uint8_t *const nonce[8])
{
    static const uint32_t sigma[4] = {0x61707865u, 0x3320646Eu, 0x79622D32u, 0x6B206574u};
    lanes8 k[8], v[4], t[4];
    size_t i, j;
    for (i = 0; i < 4; i++)
        start[i] = (lanes8){sigma[i], sigma[i], sigma[i], sigma[i],
                            sigma[i], sigma[i], sigma[i], sigma[i]};
    for (j = 0; j < 8; j++)
        k[j] = (lanes8)(quads8){quad_at(key[j]), quad_at(key[j] + 8), quad_at(key[j] + 16),
                                quad_at(key[j] + 24)};
    /* Key words 0..3 of packets j and j + 4 in v[j], transposed (as
     * TRANSPOSE8 undoes its own work): words 4..7; then 8..11. */
    for (j = 0; j < 4; j++)
        v[j] = __builtin_shufflevector(k[j], k[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    TRANSPOSE8(t, v, 0);
    for (i = 0; i < 4; i++)
        start[4 + i] = t[i];
    for (j = 0; j < 4; j++)
        v[j] = __builtin_shufflevector(k[j], k[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    TRANSPOSE8(t, v, 0);
    for (i = 0; i < 4; i++)
        start[8 + i] = t[i];
    /* Counter 0 and the nonce's three words: words 12..15. */
    for (j = 0; j < 4; j++)
        v[j] = (lanes8)(quads8){(uint64_t)zl_get_le32(nonce[j]) << 32, quad_at(nonce[j] + 4),
                                (uint64_t)zl_get_le32(nonce[j + 4]) << 32,
                                quad_at(nonce[j + 4] + 4)};
    TRANSPOSE8(t, v, 0);
    for (i = 0; i < 4; i++)
        start[12 + i] = t[i];
    zl_crypto_wipe(k, sizeof k);
    zl_crypto_wipe(v, sizeof v);
    zl_crypto_wipe(t, sizeof t);
}

/* As xor_pass, for n bytes (at most PASS8_BLOCKS) with the keystream of
 * blocks state[12] to state[12] + 8: the first eight in vectors, vector i
 * holding word i of the eight, the ninth in words beside them. */
AVX2_FN __attribute__((always_inline)) static inline void
xor_pass8_in(uint8_t *out, const uint8_t *in, const uint32_t state[16], size_t n)
{
    const lanes8 step = {0, 1, 2, 3, 4, 5, 6, 7};
    lanes8 v[16], start[16], t[4];
    lanes block[PASS8_BLOCKS][4];
    uint32_t x[16];
    size_t i, j;
    for (i = 0; i < 16; i++) {
        uint32_t w = state[i];
        start[i] = (lanes8){w, w, w, w, w, w, w, w};
        x[i] = w;
    }
    start[12] += step;
    x[12] += 8;
    PASS_ROUNDS(v, start, x, ROT16_LANES8, ROT8_LANES8);
    for (i = 0; i < 4; i++) {
        TRANSPOSE8(t, v, 4 * i);
        for (j = 0; j < 4; j++) {
            block[j][i] = LOW(t[j]);
            block[j + 4][i] = HIGH(t[j]);
        }
    }
    word_block(block[8], x, state, 8);
    xor_blocks(out, in, n, block);
    zl_crypto_wipe(block, sizeof block);
    zl_crypto_wipe(x, sizeof x);
}

/* start8 for the packets x[0..n-1], zl_aead_ahead or zl_aead_lane
 * (lanes past n repeat packet 0, their output unused). */
#define START8(start, x, n)                                   \
    do {                                                      \
        const uint8_t *key_[8], *nonce_[8];                   \
        size_t j_;                                            \
        for (j_ = 0; j_ < 8; j_++) {                          \
            key_[j_] = (x)[j_ < (n) ? j_ : 0].key;            \
            nonce_[j_] = (x)[j_ < (n) ? j_ : 0].nonce;        \
        }                                                     \
        start8(start, key_, nonce_);                          \
    } while (0)

/* Writes block b of the heads a[0..n-1] from eight keystream blocks, word
 * i of lane j in v[i]. */
PASS_HELPER void heads_put8(zl_aead_ahead *a, size_t n, size_t b, const lanes8 v[16])
{
    lanes8 t[4];
    size_t i, j;
    for (i = 0; i < 4; i++) {
        uint8_t *at = a[0].head + ZL_CHACHA20_BLOCK_SIZE * b + 16 * i;
        TRANSPOSE8(t, v, 4 * i);
        for (j = 0; j < 4; j++) {
            lanes low = LOW(t[j]), high = HIGH(t[j]);
            if (j < n)
                __builtin_memcpy(at + j * sizeof *a, &low, 16);
            if (j + 4 < n)
                __builtin_memcpy(at + (j + 4) * sizeof *a, &high, 16);
        }
    }
    zl_crypto_wipe(t, sizeof t);
}

/* Gives lanes l[0..n-1] their block b (lanes_take) from eight keystream
 * blocks, word i of lane j in v[i]. */
PASS_HELPER void lanes_put8(zl_aead_lane *l, size_t n, size_t b, const lanes8 v[16])
{
    lanes8 t[4];
    lanes ks[8][4];
    size_t i, j;
    for (i = 0; i < 4; i++) {
        TRANSPOSE8(t, v, 4 * i);
        for (j = 0; j < 4; j++) {
            ks[j][i] = LOW(t[j]);
            ks[j + 4][i] = HIGH(t[j]);
        }
    }
    lanes_take(l, n, b, ks);
    zl_crypto_wipe(t, sizeof t);
    zl_crypto_wipe(ks, sizeof ks);
}

/* As heads_pass, eight packets side by side. */
AVX2_FN static size_t heads_pass8(zl_aead_ahead *a, size_t n)
{
    lanes8 v[16], start[16];
    size_t b;
    START8(start, a, n);
    for (b = 0; b < 2; b++, start[12] += 1) {
        LANE_ROUNDS(v, start, ROT16_LANES8, ROT8_LANES8);
        heads_put8(a, n, b, v);
    }
    zl_crypto_wipe(v, sizeof v);
    zl_crypto_wipe(start, sizeof start);
    return n;
}

/* As lanes_pass, eight packets side by side. */
AVX2_FN static size_t lanes_pass8(zl_aead_lane *l, size_t n)
{
    lanes8 v[16], start[16];
    size_t b, blocks = lane_blocks(l, n);
    START8(start, l, n);
    for (b = 0; b < blocks; b++, start[12] += 1) {
        LANE_ROUNDS(v, start, ROT16_LANES8, ROT8_LANES8);
        lanes_put8(l, n, b, v);
    }
    zl_crypto_wipe(v, sizeof v);
    zl_crypto_wipe(start, sizeof start);
    return n;
}

/* xor_pass8 on each path that runs it: the body above built for the
 * path's instructions. With AVX-512VL (on CPUs that have it, asked at run
 * time as AVX2 is) the same vector text takes one-instruction rotations by
 * 12 and 7 (three with AVX2) and 32 vector registers where AVX2 has 16, so
 * the sixteen words stay in registers through the rounds. */
AVX2_FN static void xor_pass8_avx2(uint8_t *out, const uint8_t *in, const uint32_t state[16],
                                   size_t n)
{
    xor_pass8_in(out, in, state, n);
}

VL512_FN static void xor_pass8_vl(uint8_t *out, const uint8_t *in, const uint32_t state[16],
                                  size_t n)
{
    xor_pass8_in(out, in, state, n);
}

/* Two blocks of each of eight packets in 512-bit lanes where the CPU has
 * AVX-512F and VL: lane j is packet j's block b, lane 8 + j its block
 * b + 1, so a pass takes what two of the eight-lane ones do; each half
 * then goes out as an eight-lane pass's vectors do. */
typedef uint32_t lanes16 __attribute__((vector_size(64)));
#define ROT16_LANES16(x) ROTL(x, 16)
#define ROT8_LANES16(x) ROTL(x, 8)
#define HALF16(y, h)                                                                     \
    ((h) ? __builtin_shufflevector(y, y, 8, 9, 10, 11, 12, 13, 14, 15)                     \
         : __builtin_shufflevector(y, y, 0, 1, 2, 3, 4, 5, 6, 7))

/* start (eight packets' block b) twice, the second half a block on. */
VL512_FN __attribute__((always_inline)) static inline void start16(lanes16 wide[16],
                                                                  const lanes8 start[16])
{
    size_t i;
    for (i = 0; i < 16; i++)
        wide[i] = __builtin_shufflevector(start[i], start[i], 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                          11, 12, 13, 14, 15);
    wide[12] += (lanes16){0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
}

/* As heads_pass8: both blocks in one pass. */
VL512_FN static size_t heads_pass16(zl_aead_ahead *a, size_t n)
{
    lanes8 start[16], half[16];
    lanes16 v[16], wide[16];
    size_t i, b;
    START8(start, a, n);
    start16(wide, start);
    LANE_ROUNDS(v, wide, ROT16_LANES16, ROT8_LANES16);
    for (b = 0; b < 2; b++) {
        for (i = 0; i < 16; i++)
            half[i] = HALF16(v[i], b);
        heads_put8(a, n, b, half);
    }
    zl_crypto_wipe(start, sizeof start);
    zl_crypto_wipe(half, sizeof half);
    zl_crypto_wipe(v, sizeof v);
    zl_crypto_wipe(wide, sizeof wide);
    return n;
}

/* As lanes_pass8, two block indexes a pass. */
VL512_FN static size_t lanes_pass16(zl_aead_lane *l, size_t n)
{
    lanes8 start[16], half[16];
    lanes16 v[16], wide[16];
    size_t i, b, h, blocks = lane_blocks(l, n);
    START8(start, l, n);
    start16(wide, start);
    for (b = 0; b < blocks; b += 2, wide[12] += 2) {
        LANE_ROUNDS(v, wide, ROT16_LANES16, ROT8_LANES16);
        for (h = 0; h < 2 && b + h < blocks; h++) {
            for (i = 0; i < 16; i++)
                half[i] = HALF16(v[i], h);
            lanes_put8(l, n, b + h, half);
        }
    }
    zl_crypto_wipe(start, sizeof start);
    zl_crypto_wipe(half, sizeof half);
    zl_crypto_wipe(v, sizeof v);
    zl_crypto_wipe(wide, sizeof wide);
    return n;
}
#endif

/* The widest path allowed (zl_chacha20_limit). */
static int widest_allowed = ZL_CHACHA20_WIDEST;

/* The path a call takes: the widest allowed that the build has and the
 * CPU runs. The CPU's features are read once, when the program starts
 * (the compiler's runtime), so asking costs a load and a test. */
static int path(void)
{
#ifdef ZL_CHACHA20_AVX2
    if (widest_allowed >= ZL_CHACHA20_VEC512 && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
        return ZL_CHACHA20_VEC512;
    if (widest_allowed >= ZL_CHACHA20_VEC256 && __builtin_cpu_supports("avx2"))
        return ZL_CHACHA20_VEC256;
#endif
#ifdef LANES
    if (widest_allowed >= ZL_CHACHA20_VEC128)
        return ZL_CHACHA20_VEC128;
#endif
    return ZL_CHACHA20_WORDS;
}

int zl_chacha20_limit(int widest)
{
    widest_allowed = widest;
    return path();
}

/* The blocks in one pass of path p. */
static size_t pass_blocks(int p)
{
#ifdef ZL_CHACHA20_AVX2
    if (p >= ZL_CHACHA20_VEC256)
        return PASS8_BLOCKS;
#endif
#ifdef LANES
    if (p == ZL_CHACHA20_VEC128)
        return PASS_BLOCKS;
#endif
    (void)p;
    return 1;
}

/* XORs the first bytes of the len at in with the keystream from c's block
 * counter into out, as many as one pass of path p takes, and returns how
 * many. The counter is the caller's to move. A wide pass (five blocks on
 * the 128-bit path, nine on the 256-bit one) costs about what three blocks
 * one at a time do, so it runs while more than two blocks are left; five
 * or fewer take the 128-bit pass, a little cheaper than the nine-block one
 * (BENCHMARKS.md). */
static size_t pass(int p, zl_chacha20 *c, uint8_t *out, const uint8_t *in, size_t len)
{
    size_t n;
    if (p >= ZL_CHACHA20_VEC256 && len <= pass_blocks(ZL_CHACHA20_VEC128) * ZL_CHACHA20_BLOCK_SIZE)
        p = ZL_CHACHA20_VEC128;
    n = pass_blocks(p) * ZL_CHACHA20_BLOCK_SIZE;
    if (len <= 2 * ZL_CHACHA20_BLOCK_SIZE) {
        p = ZL_CHACHA20_WORDS;
        n = ZL_CHACHA20_BLOCK_SIZE;
    }
    n = len < n ? len : n;
    switch (p) {
#ifdef ZL_CHACHA20_AVX2
    case ZL_CHACHA20_VEC512:
        xor_pass8_vl(out, in, c->state, n);
        break;
    case ZL_CHACHA20_VEC256:
        xor_pass8_avx2(out, in, c->state, n);
        break;
#endif
#ifdef LANES
    case ZL_CHACHA20_VEC128:
        xor_pass(out, in, c->state, n);
        break;
#endif
    default:
        rounds(c->x, c->state);
        xor_keystream(out, in, c->x, c->state, n);
        break;
    }
    return n;
}

void zl_chacha20_start(zl_chacha20 *c, const uint8_t key[ZL_CHACHA20_KEY_SIZE],
                       const uint8_t nonce[ZL_CHACHA20_NONCE_SIZE], uint32_t counter)
{
    ZL_ASSERT(c != NULL && key != NULL && nonce != NULL);
    set_key(c->state, key);
    c->state[12] = counter;
    c->state[13] = zl_get_le32(nonce);
    c->state[14] = zl_get_le32(nonce + 4);
    c->state[15] = zl_get_le32(nonce + 8);
}

void zl_chacha20_stream(zl_chacha20 *c, uint8_t *out, const uint8_t *in, size_t len)
{
    int p = path();
    size_t n;
    ZL_ASSERT(c != NULL && ((out != NULL && in != NULL) || len == 0));
    while (len > 0) {
        n = pass(p, c, out, in, len);
        /* The blocks used, a partial one included. */
        c->state[12] += (uint32_t)((n + ZL_CHACHA20_BLOCK_SIZE - 1) / ZL_CHACHA20_BLOCK_SIZE);
        in += n;
        out += n;
        len -= n;
    }
}

int zl_chacha20_xor(uint8_t *out, const uint8_t *in, size_t len,
                    const uint8_t key[ZL_CHACHA20_KEY_SIZE],
                    const uint8_t nonce[ZL_CHACHA20_NONCE_SIZE], uint32_t counter)
{
    zl_chacha20 c;
    uint64_t blocks_left = ((uint64_t)1 << 32) - counter;
    ZL_ASSERT(key != NULL && nonce != NULL && ((out != NULL && in != NULL) || len == 0));
    if ((uint64_t)len / ZL_CHACHA20_BLOCK_SIZE + (len % ZL_CHACHA20_BLOCK_SIZE != 0) > blocks_left)
        return ZL_ERR_INVALID;
    zl_chacha20_start(&c, key, nonce, counter);
    zl_chacha20_stream(&c, out, in, len);
    zl_crypto_wipe(&c, sizeof c);
    return ZL_OK;
}

size_t zl_chacha20_head(zl_chacha20 *c, uint8_t ks[ZL_CHACHA20_BLOCK_SIZE + ZL_CHACHA20_HEAD_MAX],
                        size_t len)
{
    /* Block 0 and as many more as fill the path's pass. */
    size_t k = (pass_blocks(path()) - 1) * ZL_CHACHA20_BLOCK_SIZE;
    int i;
    ZL_ASSERT(c != NULL && ks != NULL);
    if (k > 0) {
        k = len < k ? len : k;
        memset(ks, 0, ZL_CHACHA20_BLOCK_SIZE + k);
        zl_chacha20_stream(c, ks, ks, ZL_CHACHA20_BLOCK_SIZE + k);
        return k;
    }
    /* One block at a time gains nothing from more at once: block 0 alone,
     * only its first half (the key) written, with no zeros to XOR. */
    rounds(c->x, c->state);
    for (i = 0; i < ZL_POLY1305_KEY_SIZE / 4; i++)
        zl_put_le32(ks + 4 * i, c->x[i] + c->state[i]);
    c->state[12]++;
    return 0;
}

size_t zl_aead_ahead_lanes(void)
{
    int p = path();
#ifdef ZL_CHACHA20_AVX2
    if (p >= ZL_CHACHA20_VEC256)
        return ZL_AEAD_LANES_MAX;
#endif
#ifdef LANES
    if (p >= ZL_CHACHA20_VEC128)
        return LANES;
#endif
    (void)p;
    return 1;
}

void zl_aead_ahead_make(zl_aead_ahead *a, size_t n)
{
    int p = path();
    size_t k;
    ZL_ASSERT(a != NULL || n == 0);
    for (; n > 0; a += k, n -= k) {
#ifdef ZL_CHACHA20_AVX2
        /* Five or more take the eight lanes; fewer the four, cheaper. */
        if (p >= ZL_CHACHA20_VEC256 && n > 4) {
            k = p == ZL_CHACHA20_VEC512 ? heads_pass16(a, n < 8 ? n : 8)
                                        : heads_pass8(a, n < 8 ? n : 8);
            continue;
        }
#endif
#ifdef LANES
        /* One packet alone: two blocks in words cost less than a pass. */
        if (p >= ZL_CHACHA20_VEC128 && n > 1) {
            k = heads_pass(a, n < LANES ? n : LANES);
            continue;
        }
#endif
        {
            zl_chacha20 c;
            memset(a->head, 0, sizeof a->head);
            zl_chacha20_start(&c, a->key, a->nonce, 0);
            zl_chacha20_stream(&c, a->head, a->head, sizeof a->head);
            zl_crypto_wipe(&c, sizeof c);
            k = 1;
        }
    }
    (void)p;
}

size_t zl_aead_lanes_xor(zl_aead_lane *l, size_t n)
{
    int p = path();
    ZL_ASSERT(l != NULL || n == 0);
#ifdef ZL_CHACHA20_AVX2
    /* Five or more take the eight lanes; fewer the four, cheaper. */
    if (p >= ZL_CHACHA20_VEC256 && n > 4)
        return p == ZL_CHACHA20_VEC512 ? lanes_pass16(l, n < 8 ? n : 8)
                                       : lanes_pass8(l, n < 8 ? n : 8);
#endif
#ifdef LANES
    if (p >= ZL_CHACHA20_VEC128 && n > 1)
        return lanes_pass(l, n < LANES ? n : LANES);
#endif
    (void)p;
    return 0;
}

void zl_hchacha20_derive(uint8_t out[ZL_CHACHA20_KEY_SIZE], const uint8_t key[ZL_CHACHA20_KEY_SIZE],
                         const uint8_t input[ZL_HCHACHA20_INPUT_SIZE])
{
    uint32_t s[16], x[16];
    int i;
    ZL_ASSERT(out != NULL && key != NULL && input != NULL);
    set_key(s, key);
    for (i = 0; i < 4; i++)
        s[12 + i] = zl_get_le32(input + 4 * i);
    /* No final addition: the output is the two rows that held only public
     * words (constants and input), never the key's rows, so adding the
     * input back would hide nothing. */
    rounds(x, s);
    for (i = 0; i < 4; i++) {
        zl_put_le32(out + 4 * i, x[i]);
        zl_put_le32(out + 16 + 4 * i, x[12 + i]);
    }
    zl_crypto_wipe(s, sizeof s);
    zl_crypto_wipe(x, sizeof x);
}
