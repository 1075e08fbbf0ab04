/* fuzz_crypto.c - differential libFuzzer harness: every crypto primitive in
 * core against libsodium, every output byte and every accept or reject.
 * FUZZ_LIBS: -lsodium (libsodium is linked into this harness only) */
#include <sodium.h>
#include <string.h>

#include "zl_fuzz.h"

#include "zl_bytes.h"
#include "zl_crypto.h"

/* The input, in order:
 *   mode        bit 0: XChaCha20-Poly1305 (else ChaCha20-Poly1305);
 *               bits 1-2: how the sealed packet is tampered with (below)
 *   aad_len     bytes of aad taken from the input
 *   where, how  position (2 bytes) and XOR mask of the tampering; also
 *               the size of the batch an open or a seal goes through
 *               and the packet's position in it (batch_open, batch_seal)
 *   counter     4 bytes, the ChaCha20 block counter; then a byte: bit 0
 *               puts the counter near its wrap, bits 1-2 the widest
 *               ChaCha20 path to take (zl_chacha20_limit), so every path
 *               the build and CPU have is compared
 *   key         32 bytes
 *   nonce       24 bytes (ChaCha20-Poly1305 uses the first 12)
 *   aad, then the message: the rest, up to MAX_MSG bytes. */
#define HEAD 10
#define MAX_MSG 4096
#define MIN_INPUT (HEAD + 32 + 24)

typedef struct input {
    int extended;
    unsigned tamper;
    size_t where;
    uint8_t how;
    uint32_t counter;
    const uint8_t *key, *nonce, *aad, *msg;
    size_t aad_len, msg_len;
} input;

static uint8_t ours[MAX_MSG + 16], theirs[MAX_MSG + 16], packet[MAX_MSG + 17];
static uint8_t ours_out[MAX_MSG + 16], theirs_out[MAX_MSG + 16], batch_out[MAX_MSG + 16];
static uint8_t aad_copy[256];

static int parse(input *in, const uint8_t *data, size_t size)
{
    size_t rest;
    if (size < MIN_INPUT)
        return 0;
    in->extended = data[0] & 1;
    in->tamper = (data[0] >> 1) & 3u;
    in->where = (size_t)data[2] | (size_t)data[3] << 8;
    in->how = data[4];
    in->counter = zl_get_le32(data + 5);
    /* Counters near the wrap come up often enough to test the limit. */
    if (data[9] & 1)
        in->counter = 0xFFFFFFFFu - (uint32_t)data[5];
    zl_chacha20_limit((data[9] >> 1) & 3);
    in->key = data + HEAD;
    in->nonce = data + HEAD + 32;
    rest = size - MIN_INPUT;
    in->aad_len = data[1] < rest ? data[1] : rest;
    in->aad = data + MIN_INPUT;
    in->msg = in->aad + in->aad_len;
    in->msg_len = rest - in->aad_len;
    return in->msg_len <= MAX_MSG;
}

static int zl_open(const input *in, uint8_t *out, const uint8_t *c, size_t len,
                   const uint8_t *aad, size_t aad_len)
{
    return in->extended
               ? zl_xchacha20poly1305_open(out, MAX_MSG + 16, c, len, aad, aad_len, in->nonce,
                                           in->key)
               : zl_chacha20poly1305_open(out, MAX_MSG + 16, c, len, aad, aad_len, in->nonce,
                                          in->key);
}

static int sodium_open(const input *in, uint8_t *out, const uint8_t *c, size_t len,
                       const uint8_t *aad, size_t aad_len)
{
    unsigned long long n = 0;
    int r = in->extended
                ? crypto_aead_xchacha20poly1305_ietf_decrypt(out, &n, NULL, c, len, aad, aad_len,
                                                             in->nonce, in->key)
                : crypto_aead_chacha20poly1305_ietf_decrypt(out, &n, NULL, c, len, aad, aad_len,
                                                            in->nonce, in->key);
    return r == 0 ? (int)n : -1;
}

/* The key and 12-byte nonce a ChaCha20-Poly1305 seal or open of in runs
 * under: XChaCha20's subkey and short nonce, as zl_xchacha20poly1305_seal
 * makes them, or the input's own. */
static void inner_key(const input *in, uint8_t key[32], uint8_t nonce[12])
{
    memset(nonce, 0, 12);
    if (in->extended) {
        zl_hchacha20_derive(key, in->key, in->nonce);
        memcpy(nonce + 4, in->nonce + 16, 8);
    } else {
        memcpy(key, in->key, 32);
        memcpy(nonce, in->nonce, 12);
    }
}

/* The seal through a batch (zl_chacha20poly1305_seal_many) into out: as
 * many packets as `how` says, this one in the position `where` says, the
 * others shorter, under keys that differ from its own in a byte. */
static int batch_seal(const input *in, uint8_t *out)
{
    static zl_aead_seal_job job[ZL_AEAD_LANES_MAX + 1];
    static uint8_t keys[ZL_AEAD_LANES_MAX + 1][32], others[ZL_AEAD_LANES_MAX + 1][MAX_MSG + 16];
    size_t n = in->how % (ZL_AEAD_LANES_MAX + 1) + 1, lane = in->where % n, j;
    uint8_t nonce[12];
    inner_key(in, keys[lane], nonce);
    for (j = 0; j < n; j++) {
        memcpy(keys[j], keys[lane], 32);
        keys[j][j % 32] ^= (uint8_t)(j == lane ? 0 : j + 1);
        job[j].out = j == lane ? out : others[j];
        job[j].out_cap = MAX_MSG + 16;
        job[j].in = in->msg;
        job[j].len = j == lane ? in->msg_len : in->msg_len >> (j % 3);
        job[j].aad = in->aad;
        job[j].aad_len = in->aad_len;
        job[j].nonce = nonce;
        job[j].key = keys[j];
    }
    zl_chacha20poly1305_seal_many(job, n);
    return job[lane].result;
}

/* The open through a batch of heads made at once (zl_aead_ahead_make): as
 * many packets as `how` says, this one in the position `where` says, the
 * others under keys that differ from its own in a byte. XChaCha20 opens
 * under its subkey and short nonce, as zl_xchacha20poly1305_open does. */
static int batch_open(const input *in, uint8_t *out, const uint8_t *c, size_t len,
                      const uint8_t *aad, size_t aad_len)
{
    static zl_aead_ahead batch[ZL_AEAD_LANES_MAX + 1];
    size_t n = in->how % (ZL_AEAD_LANES_MAX + 1) + 1, lane = in->where % n, j;
    uint8_t key[32], nonce[12];
    inner_key(in, key, nonce);
    for (j = 0; j < n; j++) {
        memcpy(batch[j].key, key, 32);
        memcpy(batch[j].nonce, nonce, 12);
        batch[j].key[j % 32] ^= (uint8_t)(j == lane ? 0 : j + 1);
    }
    zl_aead_ahead_make(batch, n);
    return zl_chacha20poly1305_open_ahead(&batch[lane], out, MAX_MSG + 16, c, len, aad, aad_len,
                                          nonce, key);
}

/* Both sides open the same bytes: the same decision, the same plaintext;
 * the open through a batch too. */
static void compare_open(const input *in, const uint8_t *c, size_t len, const uint8_t *aad,
                         size_t aad_len)
{
    int a = zl_open(in, ours_out, c, len, aad, aad_len);
    int b = sodium_open(in, theirs_out, c, len, aad, aad_len);
    int m = batch_open(in, batch_out, c, len, aad, aad_len);
    REQUIRE((a >= 0) == (b >= 0) && m == a);
    if (a >= 0)
        REQUIRE(a == b && memcmp(ours_out, theirs_out, (size_t)a) == 0 &&
                memcmp(batch_out, theirs_out, (size_t)a) == 0);
    else
        REQUIRE(a == (len < 16 ? ZL_ERR_MALFORMED : ZL_ERR_AUTH));
}

/* Seal on both sides, open the result, then open a tampered copy. */
static void check_aead(const input *in)
{
    unsigned long long n = 0;
    size_t len = in->msg_len + 16, at;
    int r;
    if (in->extended) {
        r = zl_xchacha20poly1305_seal(ours, sizeof ours, in->msg, in->msg_len, in->aad,
                                      in->aad_len, in->nonce, in->key);
        crypto_aead_xchacha20poly1305_ietf_encrypt(theirs, &n, in->msg, in->msg_len, in->aad,
                                                   in->aad_len, NULL, in->nonce, in->key);
    } else {
        r = zl_chacha20poly1305_seal(ours, sizeof ours, in->msg, in->msg_len, in->aad,
                                     in->aad_len, in->nonce, in->key);
        crypto_aead_chacha20poly1305_ietf_encrypt(theirs, &n, in->msg, in->msg_len, in->aad,
                                                  in->aad_len, NULL, in->nonce, in->key);
    }
    REQUIRE(r == (int)len && n == len && memcmp(ours, theirs, len) == 0);
    REQUIRE(batch_seal(in, batch_out) == r && memcmp(batch_out, theirs, len) == 0);
    compare_open(in, ours, len, in->aad, in->aad_len);
    REQUIRE(memcmp(ours_out, in->msg, in->msg_len) == 0);

    memcpy(packet, ours, len);
    switch (in->tamper) {
    case 0: /* one byte of ciphertext or tag changed (or none, when how is 0) */
        packet[in->where % len] ^= in->how;
        compare_open(in, packet, len, in->aad, in->aad_len);
        break;
    case 1: /* cut short, or one byte longer */
        at = in->where % (len + 2);
        packet[len] = in->how;
        compare_open(in, packet, at, in->aad, in->aad_len);
        break;
    case 2: /* the aad changed, or shortened by a byte */
        if (in->aad_len == 0)
            break;
        memcpy(aad_copy, in->aad, in->aad_len);
        aad_copy[in->where % in->aad_len] ^= in->how;
        compare_open(in, packet, len, aad_copy, in->aad_len - (in->how & 1u));
        break;
    default: /* the message itself as a received packet: garbage */
        compare_open(in, in->msg, in->msg_len, in->aad, in->aad_len);
        break;
    }
}

/* The stream cipher, in place too, and the counter limit. */
static void check_chacha20(const input *in)
{
    uint64_t blocks = ((uint64_t)in->msg_len + 63) / 64;
    int wraps = blocks > ((uint64_t)1 << 32) - in->counter;
    int r = zl_chacha20_xor(ours, in->msg, in->msg_len, in->key, in->nonce, in->counter);
    REQUIRE(r == (wraps ? ZL_ERR_INVALID : ZL_OK));
    if (wraps)
        return;
    crypto_stream_chacha20_ietf_xor_ic(theirs, in->msg, in->msg_len, in->nonce, in->counter,
                                       in->key);
    REQUIRE(memcmp(ours, theirs, in->msg_len) == 0);
    memcpy(ours, in->msg, in->msg_len);
    REQUIRE(zl_chacha20_xor(ours, ours, in->msg_len, in->key, in->nonce, in->counter) == ZL_OK);
    REQUIRE(memcmp(ours, theirs, in->msg_len) == 0);
}

/* Poly1305 on the message under the input's key, fed in two pieces. */
static void check_poly1305(const input *in)
{
    uint8_t a[16], b[16];
    size_t split = in->msg_len ? in->where % (in->msg_len + 1) : 0;
    zl_poly1305 p;
    zl_poly1305_init(&p, in->key);
    zl_poly1305_update(&p, in->msg, split);
    zl_poly1305_update(&p, in->msg + split, in->msg_len - split);
    zl_poly1305_final(&p, a);
    crypto_onetimeauth_poly1305(b, in->msg, in->msg_len, in->key);
    REQUIRE(memcmp(a, b, 16) == 0);
}

static void check_hchacha20(const input *in)
{
    uint8_t a[32], b[32];
    zl_hchacha20_derive(a, in->key, in->nonce);
    crypto_core_hchacha20(b, in->nonce, in->key, NULL);
    REQUIRE(memcmp(a, b, 32) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in;
    REQUIRE(sodium_init() >= 0);
    if (!parse(&in, data, size))
        return 0;
    check_aead(&in);
    check_chacha20(&in);
    check_poly1305(&in);
    check_hchacha20(&in);
    return 0;
}
