/* zl_aead.c - ChaCha20-Poly1305 (RFC 8439 section 2.8), its 24-byte-nonce
 * form XChaCha20-Poly1305, and the built-in entry of the port hook. */
#include <limits.h>

#include "zl_crypto.h"

#include "zl_bytes.h"

static const uint8_t zeros[16];

/* The one-time Poly1305 key: the first 32 bytes of keystream block 0. */
static void one_time_key(uint8_t pk[ZL_POLY1305_KEY_SIZE], const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                         const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    int i;
    for (i = 0; i < ZL_POLY1305_KEY_SIZE; i++)
        pk[i] = 0;
    /* 32 bytes from block 0 never wrap the counter. */
    (void)zl_chacha20_xor(pk, pk, ZL_POLY1305_KEY_SIZE, key, nonce, 0);
}

/* The tag over aad, zeros to a 16-byte boundary, the ciphertext, zeros
 * again, then both lengths as 64-bit little-endian numbers. */
static void compute_tag(uint8_t tag[ZL_AEAD_TAG_SIZE], const uint8_t *aad, size_t aad_len,
                        const uint8_t *ct, size_t ct_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                        const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    uint8_t pk[ZL_POLY1305_KEY_SIZE], lengths[16];
    zl_poly1305 mac;
    one_time_key(pk, nonce, key);
    zl_poly1305_init(&mac, pk);
    zl_crypto_wipe(pk, sizeof pk);
    zl_poly1305_update(&mac, aad, aad_len);
    zl_poly1305_update(&mac, zeros, (16u - aad_len % 16u) % 16u);
    zl_poly1305_update(&mac, ct, ct_len);
    zl_poly1305_update(&mac, zeros, (16u - ct_len % 16u) % 16u);
    zl_put_le32(lengths, (uint32_t)aad_len);
    zl_put_le32(lengths + 4, (uint32_t)((uint64_t)aad_len >> 32));
    zl_put_le32(lengths + 8, (uint32_t)ct_len);
    zl_put_le32(lengths + 12, (uint32_t)((uint64_t)ct_len >> 32));
    zl_poly1305_update(&mac, lengths, sizeof lengths);
    zl_poly1305_final(&mac, tag);
}

int zl_chacha20poly1305_seal(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                             const uint8_t *aad, size_t aad_len,
                             const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                             const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    ZL_ASSERT(out != NULL && nonce != NULL && key != NULL);
    ZL_ASSERT((in != NULL || len == 0) && (aad != NULL || aad_len == 0));
    /* INT_MAX bytes also keep the 32-bit block counter from wrapping. */
    if (len > (size_t)INT_MAX - ZL_AEAD_TAG_SIZE)
        return ZL_ERR_INVALID;
    if (out_cap < len + ZL_AEAD_TAG_SIZE)
        return ZL_ERR_OVERFLOW;
    /* Counter 1 on: block 0 went to the one-time key. */
    (void)zl_chacha20_xor(out, in, len, key, nonce, 1);
    compute_tag(out + len, aad, aad_len, out, len, nonce, key);
    return (int)(len + ZL_AEAD_TAG_SIZE);
}

int zl_chacha20poly1305_open(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                             const uint8_t *aad, size_t aad_len,
                             const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                             const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    uint8_t tag[ZL_AEAD_TAG_SIZE];
    size_t ct_len;
    int ok;
    ZL_ASSERT(nonce != NULL && key != NULL && (in != NULL || len == 0));
    ZL_ASSERT(aad != NULL || aad_len == 0);
    if (len > (size_t)INT_MAX)
        return ZL_ERR_INVALID;
    if (len < ZL_AEAD_TAG_SIZE)
        return ZL_ERR_MALFORMED;
    ct_len = len - ZL_AEAD_TAG_SIZE;
    if (out_cap < ct_len)
        return ZL_ERR_OVERFLOW;
    ZL_ASSERT(out != NULL || ct_len == 0);
    /* Authenticate first: a forged packet is never decrypted, so no
     * plaintext of it can reach the caller, even by mistake. */
    compute_tag(tag, aad, aad_len, in, ct_len, nonce, key);
    ok = zl_crypto_equal(tag, in + ct_len, ZL_AEAD_TAG_SIZE);
    zl_crypto_wipe(tag, sizeof tag);
    if (!ok)
        return ZL_ERR_AUTH;
    /* ct_len < INT_MAX: the counter cannot wrap. */
    (void)zl_chacha20_xor(out, in, ct_len, key, nonce, 1);
    return (int)ct_len;
}

/* zl_chacha20poly1305_seal or _open. */
typedef int (*aead_fn)(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                       const uint8_t *aad, size_t aad_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                       const uint8_t key[ZL_AEAD_KEY_SIZE]);

/* XChaCha20: fn under the subkey from the nonce's first 16 bytes, with the
 * 12-byte nonce made of 4 zero bytes and the nonce's last 8. */
static int extended(aead_fn fn, uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                    const uint8_t *aad, size_t aad_len, const uint8_t nonce[ZL_XAEAD_NONCE_SIZE],
                    const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    uint8_t subkey[ZL_AEAD_KEY_SIZE], short_nonce[ZL_AEAD_NONCE_SIZE];
    int i, r;
    ZL_ASSERT(nonce != NULL && key != NULL);
    zl_hchacha20_derive(subkey, key, nonce);
    for (i = 0; i < 4; i++)
        short_nonce[i] = 0;
    for (i = 0; i < 8; i++)
        short_nonce[4 + i] = nonce[ZL_HCHACHA20_INPUT_SIZE + i];
    r = fn(out, out_cap, in, len, aad, aad_len, short_nonce, subkey);
    zl_crypto_wipe(subkey, sizeof subkey);
    return r;
}

int zl_xchacha20poly1305_seal(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                              const uint8_t *aad, size_t aad_len,
                              const uint8_t nonce[ZL_XAEAD_NONCE_SIZE],
                              const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    return extended(zl_chacha20poly1305_seal, out, out_cap, in, len, aad, aad_len, nonce, key);
}

int zl_xchacha20poly1305_open(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                              const uint8_t *aad, size_t aad_len,
                              const uint8_t nonce[ZL_XAEAD_NONCE_SIZE],
                              const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    return extended(zl_chacha20poly1305_open, out, out_cap, in, len, aad, aad_len, nonce, key);
}

/* The built-in functions under the hook's signature; ctx is unused. */
static int builtin_seal(void *ctx, uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                        const uint8_t *aad, size_t aad_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                        const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    (void)ctx;
    return zl_chacha20poly1305_seal(out, out_cap, in, len, aad, aad_len, nonce, key);
}

static int builtin_open(void *ctx, uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                        const uint8_t *aad, size_t aad_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                        const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    (void)ctx;
    return zl_chacha20poly1305_open(out, out_cap, in, len, aad, aad_len, nonce, key);
}

void zl_aead_default(zl_aead *aead)
{
    ZL_ASSERT(aead != NULL);
    aead->ctx = NULL;
    aead->seal = builtin_seal;
    aead->open = builtin_open;
}
