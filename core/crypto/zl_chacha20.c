/* zl_chacha20.c - the ChaCha20 stream cipher (RFC 8439) and HChaCha20, its
 * key derivation for 24-byte nonces: additions, XORs and fixed rotations on
 * 32-bit words, so the time never depends on the key. */
#include <string.h>

#include "zl_crypto.h"

#include "zl_bytes.h"

/* No cast: the same text rotates a uint32_t and a vector of them. */
#define ROTL(x, n) ((x) << (n) | (x) >> (32 - (n)))

/* Rotation by 16 of a word; vectors swap their lanes' halves (below). */
#define ROT16_WORD(x) ROTL(x, 16)

/* One quarter round on words a, b, c, d of x: an array of uint32_t, or
 * of vectors of them (below): the same text works on both, with rot16 the
 * rotation by 16 for the kind. */
#define QUARTER(x, a, b, c, d, rot16) \
    do {                              \
        x[a] += x[b];                 \
        x[d] = rot16(x[d] ^ x[a]);    \
        x[c] += x[d];                 \
        x[b] = ROTL(x[b] ^ x[c], 12); \
        x[a] += x[b];                 \
        x[d] = ROTL(x[d] ^ x[a], 8);  \
        x[c] += x[d];                 \
        x[b] = ROTL(x[b] ^ x[c], 7);  \
    } while (0)

/* Two of the 20 rounds on x[0..15] in place: a column round, then a
 * diagonal round. */
#define DOUBLE_ROUND(x, rot16)             \
    do {                                   \
        QUARTER(x, 0, 4, 8, 12, rot16);    \
        QUARTER(x, 1, 5, 9, 13, rot16);    \
        QUARTER(x, 2, 6, 10, 14, rot16);   \
        QUARTER(x, 3, 7, 11, 15, rot16);   \
        QUARTER(x, 0, 5, 10, 15, rot16);   \
        QUARTER(x, 1, 6, 11, 12, rot16);   \
        QUARTER(x, 2, 7, 8, 13, rot16);    \
        QUARTER(x, 3, 4, 9, 14, rot16);    \
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
        DOUBLE_ROUND(x, ROT16_WORD);
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
VECTOR_FN static void xor_blocks(uint8_t *out, const uint8_t *in, size_t n, lanes ks[][4])
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
    for (i = 0; i < 16; i++)
        v[i] = start[i];
    for (i = 0; i < 10; i++) {
        DOUBLE_ROUND(v, ROT16_LANES);
        DOUBLE_ROUND(x, ROT16_WORD);
    }
    for (i = 0; i < 16; i++)
        v[i] += start[i];
    for (i = 0; i < 4; i++) {
        TRANSPOSE(t, v, 4 * i);
        for (j = 0; j < LANES; j++)
            block[j][i] = t[j];
    }
    /* The fifth block started from state with its counter LANES on. */
    x[12] += LANES;
    for (i = 0; i < 4; i++)
        block[LANES][i] = (lanes){x[4 * i] + state[4 * i], x[4 * i + 1] + state[4 * i + 1],
                                  x[4 * i + 2] + state[4 * i + 2], x[4 * i + 3] + state[4 * i + 3]};
    xor_blocks(out, in, n, block);
    zl_crypto_wipe(block, sizeof block);
    zl_crypto_wipe(x, sizeof x);
}
#endif

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
    size_t n;
    ZL_ASSERT(c != NULL && ((out != NULL && in != NULL) || len == 0));
#ifdef LANES
    /* Five blocks a pass while more than two are left: a pass costs
     * about what three blocks one at a time do (the vector rotations take
     * three instructions where the scalar ones take one). */
    while (len > 2 * ZL_CHACHA20_BLOCK_SIZE) {
        n = len < PASS_BLOCKS * ZL_CHACHA20_BLOCK_SIZE ? len : PASS_BLOCKS * ZL_CHACHA20_BLOCK_SIZE;
        xor_pass(out, in, c->state, n);
        c->state[12] += PASS_BLOCKS;
        in += n;
        out += n;
        len -= n;
    }
#endif
    /* One keystream block at a time. */
    while (len > 0) {
        n = len < ZL_CHACHA20_BLOCK_SIZE ? len : ZL_CHACHA20_BLOCK_SIZE;
        rounds(c->x, c->state);
        xor_keystream(out, in, c->x, c->state, n);
        c->state[12]++;
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
#ifdef LANES
    /* Block 0 and up to PASS_BLOCKS - 1 more: one pass of xor_pass. */
    size_t k = len < (PASS_BLOCKS - 1) * ZL_CHACHA20_BLOCK_SIZE
                   ? len
                   : (PASS_BLOCKS - 1) * ZL_CHACHA20_BLOCK_SIZE;
    ZL_ASSERT(c != NULL && ks != NULL);
    memset(ks, 0, ZL_CHACHA20_BLOCK_SIZE + k);
    zl_chacha20_stream(c, ks, ks, ZL_CHACHA20_BLOCK_SIZE + k);
    return k;
#else
    /* One block at a time gains nothing from more at once: block 0 alone,
     * only its first half (the key) written, with no zeros to XOR. */
    int i;
    ZL_ASSERT(c != NULL && ks != NULL);
    (void)len;
    rounds(c->x, c->state);
    for (i = 0; i < ZL_POLY1305_KEY_SIZE / 4; i++)
        zl_put_le32(ks + 4 * i, c->x[i] + c->state[i]);
    c->state[12]++;
    return 0;
#endif
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
