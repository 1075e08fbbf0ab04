/* bench_crypto.c - the cost of sealing and opening one packet with
 * ChaCha20-Poly1305 at three sizes: a command packet, a small snapshot and a
 * full 1,200-byte datagram. */
#include "zl_bench.h"
#include "zl_crypto.h"

#define SIZES 3
#define HEADER 13 /* the aad: a packet header's worth (ZL_PACKET_HEADER_SIZE) */
#define MAX_BYTES 1200

typedef struct crypto_bench {
    uint8_t key[ZL_AEAD_KEY_SIZE];
    uint8_t header[HEADER];
    uint8_t packet[MAX_BYTES + ZL_AEAD_TAG_SIZE]; /* sealed in place */
    uint8_t sealed[MAX_BYTES + ZL_AEAD_TAG_SIZE]; /* what open reads */
    uint8_t plain[MAX_BYTES];
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

void zl_bench_crypto(void)
{
    static crypto_bench b;
    static const uint32_t sizes[SIZES] = {64, 256, MAX_BYTES};
    static const char *const seal_names[SIZES] = {"seal 64 B", "seal 256 B", "seal 1200 B"};
    static const char *const open_names[SIZES] = {"open 64 B", "open 256 B", "open 1200 B"};
    static const char *const seal_byte[SIZES] = {"seal 64 B, per byte", "seal 256 B, per byte",
                                                 "seal 1200 B, per byte"};
    static const char *const open_byte[SIZES] = {"open 64 B, per byte", "open 256 B, per byte",
                                                 "open 1200 B, per byte"};
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
}
