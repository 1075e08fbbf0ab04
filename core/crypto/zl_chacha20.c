/* zl_chacha20.c - the ChaCha20 stream cipher (RFC 8439) and HChaCha20, its
 * key derivation for 24-byte nonces: additions, XORs and fixed rotations on
 * 32-bit words, so the time never depends on the key. */
#include "zl_crypto.h"

#include "zl_bytes.h"

#define ROTL(x, n) ((uint32_t)((x) << (n)) | ((x) >> (32 - (n))))

#define QUARTER(x, a, b, c, d)        \
    do {                              \
        x[a] += x[b];                 \
        x[d] = ROTL(x[d] ^ x[a], 16); \
        x[c] += x[d];                 \
        x[b] = ROTL(x[b] ^ x[c], 12); \
        x[a] += x[b];                 \
        x[d] = ROTL(x[d] ^ x[a], 8);  \
        x[c] += x[d];                 \
        x[b] = ROTL(x[b] ^ x[c], 7);  \
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

/* The 20 rounds: ten column rounds, each followed by a diagonal round. */
static void rounds(uint32_t x[16])
{
    int i;
    for (i = 0; i < 10; i++) {
        QUARTER(x, 0, 4, 8, 12);
        QUARTER(x, 1, 5, 9, 13);
        QUARTER(x, 2, 6, 10, 14);
        QUARTER(x, 3, 7, 11, 15);
        QUARTER(x, 0, 5, 10, 15);
        QUARTER(x, 1, 6, 11, 12);
        QUARTER(x, 2, 7, 8, 13);
        QUARTER(x, 3, 4, 9, 14);
    }
}

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
    for (i = 0; i < words; i++)
        zl_put_le32(out + 4 * i, zl_get_le32(in + 4 * i) ^ (x[i] + state[i]));
    if (4 * words == n)
        return;
    k = x[words] + state[words];
    for (i = 4 * words; i < n; i++, k >>= 8)
        out[i] = (uint8_t)(in[i] ^ (uint8_t)k);
}

int zl_chacha20_xor(uint8_t *out, const uint8_t *in, size_t len,
                    const uint8_t key[ZL_CHACHA20_KEY_SIZE],
                    const uint8_t nonce[ZL_CHACHA20_NONCE_SIZE], uint32_t counter)
{
    uint32_t state[16], x[16];
    uint64_t blocks_left = ((uint64_t)1 << 32) - counter;
    size_t i, n;
    ZL_ASSERT(key != NULL && nonce != NULL && ((out != NULL && in != NULL) || len == 0));
    if ((uint64_t)len / ZL_CHACHA20_BLOCK_SIZE + (len % ZL_CHACHA20_BLOCK_SIZE != 0) > blocks_left)
        return ZL_ERR_INVALID;
    set_key(state, key);
    state[12] = counter;
    state[13] = zl_get_le32(nonce);
    state[14] = zl_get_le32(nonce + 4);
    state[15] = zl_get_le32(nonce + 8);
    /* One keystream block at a time. */
    while (len > 0) {
        n = len < ZL_CHACHA20_BLOCK_SIZE ? len : ZL_CHACHA20_BLOCK_SIZE;
        for (i = 0; i < 16; i++)
            x[i] = state[i];
        rounds(x);
        xor_keystream(out, in, x, state, n);
        state[12]++;
        in += n;
        out += n;
        len -= n;
    }
    zl_crypto_wipe(state, sizeof state);
    zl_crypto_wipe(x, sizeof x);
    return ZL_OK;
}

void zl_hchacha20_derive(uint8_t out[ZL_CHACHA20_KEY_SIZE], const uint8_t key[ZL_CHACHA20_KEY_SIZE],
                         const uint8_t input[ZL_HCHACHA20_INPUT_SIZE])
{
    uint32_t x[16];
    int i;
    ZL_ASSERT(out != NULL && key != NULL && input != NULL);
    set_key(x, key);
    for (i = 0; i < 4; i++)
        x[12 + i] = zl_get_le32(input + 4 * i);
    /* No final addition: the output is the two rows that held only public
     * words (constants and input), never the key's rows, so adding the
     * input back would hide nothing. */
    rounds(x);
    for (i = 0; i < 4; i++) {
        zl_put_le32(out + 4 * i, x[i]);
        zl_put_le32(out + 16 + 4 * i, x[12 + i]);
    }
    zl_crypto_wipe(x, sizeof x);
}
