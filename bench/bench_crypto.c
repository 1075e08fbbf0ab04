/* bench_crypto.c - the cost of sealing and opening one packet with
 * ChaCha20-Poly1305 at four sizes: a command packet, a small snapshot, a
 * large one and a full 1,200-byte datagram; then on each ChaCha20 path the
 * build and CPU have, one after the other; eight snapshots' seals one by
 * one and side by side; where the port builds the bench
 * with libsodium (ZL_BENCH_SODIUM), its seal beside core's in the same run. */
#ifdef ZL_BENCH_SODIUM
#include <sodium.h>
#endif

#include <string.h>

#include "zl_bench.h"
#include "zl_crypto.h"

#define SIZES 4
#define HEADER 13 /* the aad of a server's packet on a clean link: protocol id,
                     connection id and its 5-byte header (zl_packet.c) */
#define MAX_BYTES 1200

typedef struct crypto_bench {
    uint8_t key[ZL_AEAD_KEY_SIZE];
    uint8_t header[HEADER];
    uint8_t packet[MAX_BYTES + ZL_AEAD_TAG_SIZE]; /* sealed in place */
    uint8_t sealed[MAX_BYTES + ZL_AEAD_TAG_SIZE]; /* what open reads */
    uint8_t plain[MAX_BYTES];
    uint8_t reference[MAX_BYTES + ZL_AEAD_TAG_SIZE]; /* what libsodium sealed */
    size_t bytes;
} crypto_bench;

/* The nonce a connection would use: 4 zero bytes, then the 64-bit packet
 * sequence, here the iteration. */
static void sequence_nonce(uint8_t nonce[ZL_AEAD_NONCE_SIZE], uint32_t seq)
{
    int i;
    for (i = 0; i < ZL_AEAD_NONCE_SIZE; i++)
        nonce[i] = 0;
    for (i = 0; i < 4; i++)
        nonce[4 + i] = (uint8_t)(seq >> (8 * i));
}

static void body_seal(void *ctx, uint32_t n)
{
    crypto_bench *b = (crypto_bench *)ctx;
    uint8_t nonce[ZL_AEAD_NONCE_SIZE];
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++) {
        sequence_nonce(nonce, i);
        acc += (uint32_t)zl_chacha20poly1305_seal(b->packet, sizeof b->packet, b->packet,
                                                  b->bytes, b->header, HEADER, nonce, b->key);
    }
    zl_bench_sink += acc + b->packet[b->bytes];
}

static void body_open(void *ctx, uint32_t n)
{
    crypto_bench *b = (crypto_bench *)ctx;
    uint8_t nonce[ZL_AEAD_NONCE_SIZE];
    uint32_t i, acc = 0;
    sequence_nonce(nonce, 7);
    for (i = 0; i < n; i++)
        acc += (uint32_t)zl_chacha20poly1305_open(b->plain, sizeof b->plain, b->sealed,
                                                  b->bytes + ZL_AEAD_TAG_SIZE, b->header, HEADER,
                                                  nonce, b->key);
    zl_bench_sink += acc + b->plain[0];
}

#ifdef ZL_BENCH_SODIUM
/* body_seal with libsodium's ChaCha20-Poly1305 (IETF: the 12-byte nonce). */
static void body_sodium_seal(void *ctx, uint32_t n)
{
    crypto_bench *b = (crypto_bench *)ctx;
    uint8_t nonce[ZL_AEAD_NONCE_SIZE];
    unsigned long long sealed_len;
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++) {
        sequence_nonce(nonce, i);
        crypto_aead_chacha20poly1305_ietf_encrypt(b->packet, &sealed_len, b->packet, b->bytes,
                                                  b->header, HEADER, NULL, nonce, b->key);
        acc += (uint32_t)sealed_len;
    }
    zl_bench_sink += acc + b->packet[b->bytes];
}

/* Core's seal and libsodium's at each size, one after the other, and
 * core's cost as a multiple of libsodium's. Both produce the same bytes
 * (checked first), so they do the same work. */
static void beside_sodium(crypto_bench *b, const uint32_t *sizes)
{
    static const char *const ours[SIZES] = {"core seal 64 B", "core seal 256 B",
                                            "core seal 700 B", "core seal 1200 B"};
    static const char *const theirs[SIZES] = {"libsodium seal 64 B", "libsodium seal 256 B",
                                              "libsodium seal 700 B", "libsodium seal 1200 B"};
    static const char *const ratio[SIZES] = {"core / libsodium, 64 B", "core / libsodium, 256 B",
                                             "core / libsodium, 700 B",
                                             "core / libsodium, 1200 B"};
    uint8_t nonce[ZL_AEAD_NONCE_SIZE];
    unsigned long long sealed_len;
    uint64_t a, s;
    size_t i;
    ZL_ASSERT(sodium_init() >= 0);
    sequence_nonce(nonce, 7);
    for (i = 0; i < SIZES; i++) {
        b->bytes = sizes[i];
        zl_chacha20poly1305_seal(b->sealed, sizeof b->sealed, b->packet, b->bytes, b->header,
                                 HEADER, nonce, b->key);
        crypto_aead_chacha20poly1305_ietf_encrypt(b->reference, &sealed_len, b->packet,
                                                  b->bytes, b->header, HEADER, NULL, nonce,
                                                  b->key);
        ZL_ASSERT(sealed_len == b->bytes + ZL_AEAD_TAG_SIZE);
        ZL_ASSERT(zl_crypto_equal(b->sealed, b->reference, b->bytes + ZL_AEAD_TAG_SIZE));
        a = zl_bench_measure("crypto", ours[i], body_seal, 0, b);
        s = zl_bench_measure("crypto", theirs[i], body_sodium_seal, 0, b);
        zl_bench_ratio("crypto", ratio[i], a, s);
    }
    zl_bench_note("crypto", "target: core's seal at 1200 B within x1.30 of libsodium's: %s",
                  a * 100u <= s * 130u ? "met" : "NOT met");
}
#endif

/* A tick's snapshots: eight packets of a typical sealed snapshot's size,
 * each under its own key, sealed one by one or side by side. */
#define MANY 8
#define MANY_BYTES 295

typedef struct many_bench {
    uint8_t key[MANY][ZL_AEAD_KEY_SIZE];
    uint8_t nonce[MANY][ZL_AEAD_NONCE_SIZE];
    uint8_t header[HEADER];
    uint8_t packet[MANY][MANY_BYTES + ZL_AEAD_TAG_SIZE]; /* sealed in place */
    zl_aead_seal_job job[MANY];
    zl_aead_ahead ahead[MANY]; /* eight opens' keystream heads */
} many_bench;

static void body_seal_one_by_one(void *ctx, uint32_t n)
{
    many_bench *m = (many_bench *)ctx;
    uint32_t i, j, acc = 0;
    for (i = 0; i < n; i++)
        for (j = 0; j < MANY; j++)
            acc += (uint32_t)zl_chacha20poly1305_seal(m->packet[j], sizeof m->packet[j],
                                                      m->packet[j], MANY_BYTES, m->header,
                                                      HEADER, m->nonce[j], m->key[j]);
    zl_bench_sink += acc + m->packet[MANY - 1][MANY_BYTES];
}

static void body_seal_side_by_side(void *ctx, uint32_t n)
{
    many_bench *m = (many_bench *)ctx;
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++) {
        zl_chacha20poly1305_seal_many(m->job, MANY);
        acc += (uint32_t)m->job[MANY - 1].result;
    }
    zl_bench_sink += acc + m->packet[MANY - 1][MANY_BYTES];
}

static void body_heads(void *ctx, uint32_t n)
{
    many_bench *m = (many_bench *)ctx;
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++) {
        zl_aead_ahead_make(m->ahead, MANY);
        acc += m->ahead[MANY - 1].head[0];
    }
    zl_bench_sink += acc;
}

/* Eight seals of a snapshot one by one, then side by side, on the widest
 * path, and the side-by-side cost as a share of the one-by-one; then the
 * keystream heads of eight packets to open, side by side. */
static void many_seals(void)
{
    static many_bench m;
    uint64_t one, side;
    size_t i, j;
    for (j = 0; j < MANY; j++) {
        for (i = 0; i < ZL_AEAD_KEY_SIZE; i++)
            m.key[j][i] = (uint8_t)(i * 37u + j * 11u + 1u);
        sequence_nonce(m.nonce[j], (uint32_t)j * 1000u);
        for (i = 0; i < MANY_BYTES; i++)
            m.packet[j][i] = (uint8_t)((i + j) * 2654435761u >> 24);
        m.job[j].out = m.packet[j];
        m.job[j].out_cap = sizeof m.packet[j];
        m.job[j].in = m.packet[j];
        m.job[j].len = MANY_BYTES;
        m.job[j].aad = m.header;
        m.job[j].aad_len = HEADER;
        m.job[j].nonce = m.nonce[j];
        m.job[j].key = m.key[j];
        memcpy(m.ahead[j].key, m.key[j], ZL_AEAD_KEY_SIZE);
        memcpy(m.ahead[j].nonce, m.nonce[j], ZL_AEAD_NONCE_SIZE);
    }
    one = zl_bench_measure("crypto", "8 seals of 295 B, one by one", body_seal_one_by_one, 0, &m);
    side = zl_bench_measure("crypto", "8 seals of 295 B, side by side", body_seal_side_by_side, 0,
                            &m);
    zl_bench_ratio("crypto", "side by side / one by one, 8 x 295 B", side, one);
    zl_bench_measure("crypto", "8 opens' keystream heads, side by side", body_heads, 0, &m);
}

/* Sealing at each size and opening a command packet on each ChaCha20 path
 * this build and CPU have, narrowest first, then back to the widest. */
static void by_path(crypto_bench *b, const uint32_t *sizes)
{
    static const char *const names[ZL_CHACHA20_WIDEST + 1][SIZES + 1] = {
        {"words: seal 64 B", "words: seal 256 B", "words: seal 700 B", "words: seal 1200 B",
         "words: open 64 B"},
        {"128-bit: seal 64 B", "128-bit: seal 256 B", "128-bit: seal 700 B",
         "128-bit: seal 1200 B", "128-bit: open 64 B"},
        {"256-bit: seal 64 B", "256-bit: seal 256 B", "256-bit: seal 700 B",
         "256-bit: seal 1200 B", "256-bit: open 64 B"},
        {"512-bit: seal 64 B", "512-bit: seal 256 B", "512-bit: seal 700 B",
         "512-bit: seal 1200 B", "512-bit: open 64 B"},
    };
    uint8_t nonce[ZL_AEAD_NONCE_SIZE];
    int p;
    size_t i;
    sequence_nonce(nonce, 7);
    for (p = ZL_CHACHA20_WORDS; p <= ZL_CHACHA20_WIDEST; p++) {
        if (zl_chacha20_limit(p) != p)
            continue;
        for (i = 0; i < SIZES; i++) {
            b->bytes = sizes[i];
            zl_bench_measure("crypto", names[p][i], body_seal, 0, b);
        }
        b->bytes = sizes[0];
        zl_chacha20poly1305_seal(b->sealed, sizeof b->sealed, b->packet, b->bytes, b->header,
                                 HEADER, nonce, b->key);
        zl_bench_measure("crypto", names[p][SIZES], body_open, 0, b);
    }
    zl_chacha20_limit(ZL_CHACHA20_WIDEST);
}

void zl_bench_crypto(void)
{
    static crypto_bench b;
    static const uint32_t sizes[SIZES] = {64, 256, 700, MAX_BYTES};
    static const char *const seal_names[SIZES] = {"seal 64 B", "seal 256 B", "seal 700 B",
                                                  "seal 1200 B"};
    static const char *const open_names[SIZES] = {"open 64 B", "open 256 B", "open 700 B",
                                                  "open 1200 B"};
    static const char *const seal_byte[SIZES] = {"seal 64 B, per byte", "seal 256 B, per byte",
                                                 "seal 700 B, per byte", "seal 1200 B, per byte"};
    static const char *const open_byte[SIZES] = {"open 64 B, per byte", "open 256 B, per byte",
                                                 "open 700 B, per byte", "open 1200 B, per byte"};
    uint64_t seal[SIZES], open[SIZES];
    uint8_t nonce[ZL_AEAD_NONCE_SIZE];
    size_t i;
    for (i = 0; i < sizeof b.key; i++)
        b.key[i] = (uint8_t)(i * 37u + 1u);
    for (i = 0; i < HEADER; i++)
        b.header[i] = (uint8_t)(i + 0xA0u);
    for (i = 0; i < MAX_BYTES; i++)
        b.packet[i] = (uint8_t)(i * 2654435761u >> 24);
    sequence_nonce(nonce, 7);
    for (i = 0; i < SIZES; i++) {
        b.bytes = sizes[i];
        seal[i] = zl_bench_measure("crypto", seal_names[i], body_seal, 0, &b);
        zl_bench_derived("crypto", seal_byte[i], seal[i] / sizes[i]);
        /* Every open succeeds: the packet is sealed under the nonce it uses. */
        zl_chacha20poly1305_seal(b.sealed, sizeof b.sealed, b.packet, b.bytes, b.header, HEADER,
                                 nonce, b.key);
        ZL_ASSERT(zl_chacha20poly1305_open(b.plain, sizeof b.plain, b.sealed,
                                           b.bytes + ZL_AEAD_TAG_SIZE, b.header, HEADER, nonce,
                                           b.key) == (int)b.bytes);
        open[i] = zl_bench_measure("crypto", open_names[i], body_open, 0, &b);
        zl_bench_derived("crypto", open_byte[i], open[i] / sizes[i]);
    }
    zl_bench_growth("crypto", sizes, seal, SIZES);
    zl_bench_note("crypto", "ChaCha20-Poly1305 with a %d-byte header as aad; %d bytes of tag "
                            "added per packet",
                  HEADER, ZL_AEAD_TAG_SIZE);
    by_path(&b, sizes);
    many_seals();
#ifdef ZL_BENCH_SODIUM
    beside_sodium(&b, sizes);
#endif
}
