/* zl_aead.c - ChaCha20-Poly1305 (RFC 8439 section 2.8), its 24-byte-nonce
 * form XChaCha20-Poly1305, and the built-in entry of the port hook. */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "zl_crypto.h"

#include "zl_bytes.h"

/* One packet's keystream: the ChaCha20 state from block 0, the tag that
 * opening computes, then what zl_chacha20_head made of the state (the
 * one-time Poly1305 key, then the keystream of the first `head` payload
 * bytes at ks + 64). The secrets are the first bytes of the struct, so one
 * wipe covers them (wipe_stream). */
typedef struct stream_head {
    zl_chacha20 c;
    uint8_t tag[ZL_AEAD_TAG_SIZE];
    uint8_t ks[ZL_CHACHA20_BLOCK_SIZE + ZL_CHACHA20_HEAD_MAX];
    size_t head;
} stream_head;

static void start_stream(stream_head *s, size_t len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                         const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    zl_chacha20_start(&s->c, key, nonce, 0);
    s->head = zl_chacha20_head(&s->c, s->ks, len);
}

static void wipe_stream(stream_head *s)
{
    zl_crypto_wipe(s, offsetof(stream_head, ks) + ZL_CHACHA20_BLOCK_SIZE + s->head);
}

/* Feeds the len bytes at data to mac, then zeros to a 16-byte boundary:
 * the whole blocks straight from data, the rest padded in pad[0..15]. The
 * bytes are public (aad, ciphertext). Returns the bytes used in pad. */
static size_t mac_whole(zl_poly1305 *mac, uint8_t pad[16], const uint8_t *data, size_t len)
{
    size_t whole = len - len % 16u;
    zl_poly1305_update(mac, data, whole);
    if (whole == len)
        return 0;
    memset(pad, 0, 16);
    memcpy(pad, data + whole, len - whole);
    return 16;
}

/* The tag over aad, zeros to a 16-byte boundary, the ciphertext, zeros
 * again, then both lengths as 64-bit little-endian numbers, under the
 * one-time key poly_key. The ciphertext's padded tail and the lengths go
 * in as one update. */
static void compute_tag(uint8_t tag[ZL_AEAD_TAG_SIZE], const uint8_t *aad, size_t aad_len,
                        const uint8_t *ct, size_t ct_len,
                        const uint8_t poly_key[ZL_POLY1305_KEY_SIZE])
{
    uint8_t last[32];
    size_t n;
    zl_poly1305 mac;
    zl_poly1305_init(&mac, poly_key);
    zl_poly1305_update(&mac, last, mac_whole(&mac, last, aad, aad_len));
    n = mac_whole(&mac, last, ct, ct_len);
    zl_put_le32(last + n, (uint32_t)aad_len);
    zl_put_le32(last + n + 4, (uint32_t)((uint64_t)aad_len >> 32));
    zl_put_le32(last + n + 8, (uint32_t)ct_len);
    zl_put_le32(last + n + 12, (uint32_t)((uint64_t)ct_len >> 32));
    zl_poly1305_update(&mac, last, n + 16);
    zl_poly1305_final(&mac, tag);
}

/* Encrypts or decrypts len bytes at in into out (out == in works): the
 * first s->head with the keystream already made, the rest from s->c,
 * which stands at the block after it (s->head is then a whole number of
 * blocks). XOR is bytewise, so eight bytes at a time through a word read
 * either byte order. */
static void apply_stream(uint8_t *out, const uint8_t *in, size_t len, stream_head *s)
{
    const uint8_t *k = s->ks + ZL_CHACHA20_BLOCK_SIZE;
    size_t i;
    uint64_t w, v;
    for (i = 0; i + 8 <= s->head; i += 8) {
        memcpy(&w, in + i, 8);
        memcpy(&v, k + i, 8);
        w ^= v;
        memcpy(out + i, &w, 8);
    }
    for (; i < s->head; i++)
        out[i] = (uint8_t)(in[i] ^ k[i]);
    /* len < INT_MAX bytes never wrap the counter. */
    if (len > s->head)
        zl_chacha20_stream(&s->c, out + s->head, in + s->head, len - s->head);
}

/* What a seal of len bytes into out_cap returns: len + ZL_AEAD_TAG_SIZE,
 * or the error. INT_MAX bytes also keep the 32-bit block counter from
 * wrapping. */
static int seal_fits(size_t len, size_t out_cap)
{
    if (len > (size_t)INT_MAX - ZL_AEAD_TAG_SIZE)
        return ZL_ERR_INVALID;
    if (out_cap < len + ZL_AEAD_TAG_SIZE)
        return ZL_ERR_OVERFLOW;
    return (int)(len + ZL_AEAD_TAG_SIZE);
}

int zl_chacha20poly1305_seal(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                             const uint8_t *aad, size_t aad_len,
                             const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                             const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    stream_head s;
    int r = seal_fits(len, out_cap);
    ZL_ASSERT(out != NULL && nonce != NULL && key != NULL);
    ZL_ASSERT((in != NULL || len == 0) && (aad != NULL || aad_len == 0));
    if (r < 0)
        return r;
    start_stream(&s, len, nonce, key);
    apply_stream(out, in, len, &s);
    compute_tag(out + len, aad, aad_len, out, len, s.ks);
    wipe_stream(&s);
    return r;
}

/* Seals the m packets job[at[0..m-1]], which fit, keystreams side by
 * side where the path allows. */
static void seal_lanes(zl_aead_seal_job *job, const size_t *at, size_t m)
{
    zl_aead_lane l[ZL_AEAD_LANES_MAX];
    size_t i, j, k;
    for (i = 0; i < m; i++) {
        zl_aead_seal_job *b = &job[at[i]];
        l[i].key = b->key;
        l[i].nonce = b->nonce;
        l[i].in = b->in;
        l[i].out = b->out;
        l[i].len = b->len;
    }
    for (i = 0; i < m; i += k) {
        k = zl_aead_lanes_xor(l + i, m - i);
        if (k == 0) {
            zl_aead_seal_job *b = &job[at[i]];
            b->result = zl_chacha20poly1305_seal(b->out, b->out_cap, b->in, b->len, b->aad,
                                                 b->aad_len, b->nonce, b->key);
            k = 1;
            continue;
        }
        for (j = i; j < i + k; j++) {
            zl_aead_seal_job *b = &job[at[j]];
            compute_tag(b->out + b->len, b->aad, b->aad_len, b->out, b->len, l[j].poly_key);
        }
    }
    zl_crypto_wipe(l, sizeof l);
}

void zl_chacha20poly1305_seal_many(zl_aead_seal_job *job, size_t n)
{
    size_t at[ZL_AEAD_LANES_MAX], i, m = 0;
    ZL_ASSERT(job != NULL || n == 0);
    for (i = 0; i < n; i++) {
        zl_aead_seal_job *b = &job[i];
        ZL_ASSERT(b->out != NULL && b->nonce != NULL && b->key != NULL);
        ZL_ASSERT((b->in != NULL || b->len == 0) && (b->aad != NULL || b->aad_len == 0));
        b->result = seal_fits(b->len, b->out_cap);
        if (b->result >= 0)
            at[m++] = i;
        if (m == ZL_AEAD_LANES_MAX || (i + 1 == n && m > 0)) {
            seal_lanes(job, at, m);
            m = 0;
        }
    }
}

/* As start_stream, from the head a made ahead: its blocks 0 and 1, and
 * the state at block 2 when the payload goes on past block 1. */
static void take_stream(stream_head *s, size_t len, const zl_aead_ahead *a)
{
    s->head = len < ZL_CHACHA20_BLOCK_SIZE ? len : ZL_CHACHA20_BLOCK_SIZE;
    memcpy(s->ks, a->head, ZL_CHACHA20_BLOCK_SIZE + s->head);
    if (len > s->head)
        zl_chacha20_start(&s->c, a->key, a->nonce, 2);
}

int zl_chacha20poly1305_open(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                             const uint8_t *aad, size_t aad_len,
                             const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                             const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    return zl_chacha20poly1305_open_ahead(NULL, out, out_cap, in, len, aad, aad_len, nonce, key);
}

int zl_chacha20poly1305_open_ahead(const zl_aead_ahead *a, uint8_t *out, size_t out_cap,
                                   const uint8_t *in, size_t len, const uint8_t *aad,
                                   size_t aad_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                                   const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    stream_head s;
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
     * plaintext of it can reach the caller, even by mistake. The
     * keystream's head and the state wait in s meanwhile. */
    if (a != NULL && (zl_crypto_equal(a->key, key, ZL_AEAD_KEY_SIZE) &
                      zl_crypto_equal(a->nonce, nonce, ZL_AEAD_NONCE_SIZE)))
        take_stream(&s, ct_len, a);
    else
        start_stream(&s, ct_len, nonce, key);
    compute_tag(s.tag, aad, aad_len, in, ct_len, s.ks);
    ok = zl_crypto_equal(s.tag, in + ct_len, ZL_AEAD_TAG_SIZE);
    if (ok)
        apply_stream(out, in, ct_len, &s);
    wipe_stream(&s);
    return ok ? (int)ct_len : ZL_ERR_AUTH;
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

/* builtin_open with the head made ahead at ctx. */
static int ahead_open(void *ctx, uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                      const uint8_t *aad, size_t aad_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                      const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    return zl_chacha20poly1305_open_ahead((const zl_aead_ahead *)ctx, out, out_cap, in, len, aad,
                                          aad_len, nonce, key);
}

void zl_aead_default(zl_aead *aead)
{
    ZL_ASSERT(aead != NULL);
    aead->ctx = NULL;
    aead->seal = builtin_seal;
    aead->open = builtin_open;
}

int zl_aead_is_default(const zl_aead *aead)
{
    ZL_ASSERT(aead != NULL);
    return aead->seal == builtin_seal && aead->open == builtin_open;
}

void zl_aead_with_ahead(zl_aead *aead, const zl_aead_ahead *a)
{
    ZL_ASSERT(aead != NULL && a != NULL);
    aead->ctx = (void *)(uintptr_t)a; /* read only: ahead_open takes it back as const */
    aead->seal = builtin_seal;
    aead->open = ahead_open;
}
