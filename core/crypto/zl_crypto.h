/* zl_crypto.h - authenticated encryption for packets and connect tokens:
 * ChaCha20, Poly1305 and their AEADs (RFC 8439, XChaCha20), and the hook
 * through which a port supplies its own AEAD engine.
 *
 * Portable C99: no allocation, bytes loaded and stored one at a time (any
 * alignment, either byte order), and constant time: no branch and no memory
 * index depends on a key, a keystream or a tag. Lengths are public. Where a
 * function returns a count it is an int, so every length must leave the
 * result representable: a message plus its tag fits in an int. Every buffer
 * is the caller's and is used only during the call (keys and nonces are
 * read, never kept); a NULL where bytes are needed is a programmer error
 * (ZL_ASSERT), as is a NULL state.
 * Caveat: Poly1305 multiplies 32 by 32 bits into 64. Most cores do that in
 * constant time; the Cortex-M3's UMULL ends early on small operands, so
 * there its timing depends on the one-time key. A port that must resist
 * timing measured on the board can supply its engine through zl_aead. */
#ifndef ZL_CRYPTO_H
#define ZL_CRYPTO_H

#include "zl_base.h"

ZL_BEGIN_DECLS

/* Sizes in bytes. */
#define ZL_CHACHA20_KEY_SIZE 32
#define ZL_CHACHA20_NONCE_SIZE 12
#define ZL_CHACHA20_BLOCK_SIZE 64
#define ZL_HCHACHA20_INPUT_SIZE 16
#define ZL_POLY1305_KEY_SIZE 32
#define ZL_POLY1305_TAG_SIZE 16
#define ZL_AEAD_KEY_SIZE 32
#define ZL_AEAD_NONCE_SIZE 12
#define ZL_XAEAD_NONCE_SIZE 24
#define ZL_AEAD_TAG_SIZE 16

/* ---- Helpers ---- */

/* 1 when the n bytes at a and b are equal, else 0, in a time that depends
 * on n only (never on where they differ). a and b may be NULL when n is 0. */
int zl_crypto_equal(const void *a, const void *b, size_t n);

/* Sets n bytes at p to zero through volatile stores, so the compiler
 * cannot drop it as a dead store: for keys the caller is done with. p may
 * be NULL when n is 0. */
void zl_crypto_wipe(void *p, size_t n);

/* ---- ChaCha20 (RFC 8439 section 2.4) ---- */

/* XORs len bytes at in with the ChaCha20 keystream for key and nonce,
 * starting at 64-byte block number counter, into out. Encrypts and
 * decrypts alike. out and in are the caller's, len bytes each; they may be
 * the same buffer (in place) but must not otherwise overlap. in and out may
 * be NULL when len is 0. Returns ZL_OK, or ZL_ERR_INVALID (nothing
 * written) when the 32-bit block counter would wrap: more than
 * (2^32 - counter) blocks. */
int zl_chacha20_xor(uint8_t *out, const uint8_t *in, size_t len,
                    const uint8_t key[ZL_CHACHA20_KEY_SIZE],
                    const uint8_t nonce[ZL_CHACHA20_NONCE_SIZE], uint32_t counter);

/* A keystream in progress, for a caller that takes several pieces of one
 * (the AEADs below: the Poly1305 key, then the payload) under one key
 * schedule. Caller-owned; its fields are private and secret: wipe it with
 * zl_crypto_wipe when done. */
typedef struct zl_chacha20 {
    uint32_t state[16]; /* constants, key, block counter, nonce */
    uint32_t x[16];     /* the rounds' output */
} zl_chacha20;

/* Sets *c to the keystream of key and nonce from block number counter.
 * Cannot fail. */
void zl_chacha20_start(zl_chacha20 *c, const uint8_t key[ZL_CHACHA20_KEY_SIZE],
                       const uint8_t nonce[ZL_CHACHA20_NONCE_SIZE], uint32_t counter);

/* As zl_chacha20_xor from *c's block counter, which then stands at the
 * block after the last one used (a partial block counts as used), so
 * pieces that are whole blocks but the last continue one stream. The
 * caller keeps the counter from wrapping past 2^32 blocks. */
void zl_chacha20_stream(zl_chacha20 *c, uint8_t *out, const uint8_t *in, size_t len);

/* The ChaCha20 code paths, narrowest first: one block at a time in 32-bit
 * words (every build); four blocks in 128-bit vector lanes beside one in
 * words (little-endian x86-64, and ARM with NEON); eight blocks in 256-bit
 * lanes beside one in words (x86-64 built by GCC or Clang where the CPU has
 * AVX2, which is asked of the CPU at run time); where it has AVX-512F and
 * VL too, two blocks of each of eight packets in 512-bit lanes
 * (zl_aead_ahead_make, zl_aead_lanes_xor) and one stream's eight blocks in
 * 256-bit lanes with AVX-512VL's rotations. The same keystream on every
 * path. */
#define ZL_CHACHA20_WORDS 0
#define ZL_CHACHA20_VEC128 1
#define ZL_CHACHA20_VEC256 2
#define ZL_CHACHA20_VEC512 3
#define ZL_CHACHA20_WIDEST ZL_CHACHA20_VEC512
#if defined(__GNUC__) && defined(__x86_64__) && !defined(ZL_CRYPTO_PORTABLE)
#define ZL_CHACHA20_AVX2 1
#endif

/* Lets ChaCha20 take paths up to widest (ZL_CHACHA20_WORDS ..
 * ZL_CHACHA20_WIDEST; the default is the widest) and returns the path it
 * now takes: the widest of those the build and this CPU have. For tests
 * and benchmarks that run each path: the setting is the whole program's,
 * so change it only while no other thread uses ChaCha20. A widest below
 * ZL_CHACHA20_WORDS is taken as ZL_CHACHA20_WORDS. */
int zl_chacha20_limit(int widest);

/* The most payload bytes zl_chacha20_head covers: eight blocks where a
 * pass can run nine, else four. */
#ifdef ZL_CHACHA20_AVX2
#define ZL_CHACHA20_HEAD_MAX (8 * ZL_CHACHA20_BLOCK_SIZE)
#else
#define ZL_CHACHA20_HEAD_MAX (4 * ZL_CHACHA20_BLOCK_SIZE)
#endif

/* For the AEADs below, which take the first 32 bytes of block 0's
 * keystream for the Poly1305 key and encrypt from block 1, with *c started
 * at block 0: writes that key to ks, then the keystream of the first k
 * bytes from block 1 to ks + 64, and returns k: as many of len bytes as
 * the path taken makes in one pass with block 0 (up to ZL_CHACHA20_HEAD_MAX
 * where the cipher runs several blocks at once, 0 where it runs one at a
 * time), so a short packet costs one pass. k is len or a multiple of 64,
 * and in the latter case *c then stands at the block after it. ks is the
 * caller's (secret: wipe 64 + k bytes). Cannot fail. */
size_t zl_chacha20_head(zl_chacha20 *c, uint8_t ks[ZL_CHACHA20_BLOCK_SIZE + ZL_CHACHA20_HEAD_MAX],
                        size_t len);

/* ---- Several packets' keystreams at once ---- */

/* Bytes of keystream an AEAD open starts with: block 0 (the one-time
 * Poly1305 key) and block 1 (the first 64 payload bytes). */
#define ZL_AEAD_HEAD_SIZE (2 * ZL_CHACHA20_BLOCK_SIZE)

/* The most packets zl_aead_ahead_make runs side by side in one pass. */
#define ZL_AEAD_LANES_MAX 8

/* One packet's keystream head made ahead of its opening (a server makes
 * those of the datagrams it is about to receive in one go): key and nonce
 * are the caller's to fill, head is zl_aead_ahead_make's. Caller-owned
 * and secret: wipe it with zl_crypto_wipe when done. */
typedef struct zl_aead_ahead {
    uint8_t key[ZL_AEAD_KEY_SIZE];
    uint8_t nonce[ZL_AEAD_NONCE_SIZE];
    uint8_t head[ZL_AEAD_HEAD_SIZE];
} zl_aead_ahead;

/* Writes to a[i].head the first ZL_AEAD_HEAD_SIZE bytes of ChaCha20's
 * keystream under a[i].key and a[i].nonce from block 0, for i below n:
 * the same bytes as zl_chacha20_xor of zeros. The packets' blocks are
 * independent, so they run side by side in the vector lanes of one pass
 * where the path has them (eight on the 256-bit path, four on the 128-bit
 * one; one at a time in words), two blocks of each per pass (in one pass
 * of 512-bit lanes on the 512-bit path). n may be 0 (a NULL). Cannot
 * fail. */
void zl_aead_ahead_make(zl_aead_ahead *a, size_t n);

/* How many packets' heads zl_aead_ahead_make runs side by side on the
 * path this machine takes: 8 or 4 with vector lanes, 1 in words, where
 * making heads ahead saves nothing. */
size_t zl_aead_ahead_lanes(void);

/* One packet's AEAD keystream made beside others' (zl_aead_lanes_xor):
 * key, nonce, in, out and len are the caller's (out == in works; no two
 * packets' bytes overlap otherwise), poly_key is written. */
typedef struct zl_aead_lane {
    const uint8_t *key;   /* ZL_AEAD_KEY_SIZE bytes */
    const uint8_t *nonce; /* ZL_AEAD_NONCE_SIZE bytes */
    const uint8_t *in;    /* len bytes of payload */
    uint8_t *out;         /* len bytes: in XOR the keystream from block 1 */
    size_t len;           /* below INT_MAX */
    uint8_t poly_key[ZL_POLY1305_KEY_SIZE]; /* block 0's first 32 bytes (secret) */
} zl_aead_lane;

/* For the first k of l[0..n-1], side by side in the vector lanes of one
 * pass a block index (two on the 512-bit path; packet j in lane j): writes
 * poly_key and out as zl_chacha20poly1305_seal's keystream would (block 0,
 * then the payload from block 1), and returns k: up to eight on the 256-
 * and 512-bit paths (five or more take their eight lanes), up to four on
 * the 128-bit one; 0 when n < 2
 * or the path runs words, where a packet's own passes cost less. The
 * caller wipes poly_key. Cannot fail. */
size_t zl_aead_lanes_xor(zl_aead_lane *l, size_t n);

/* HChaCha20 (draft-irtf-cfrg-xchacha section 2.2): derives a 32-byte
 * subkey into out from key and the 16-byte input (the first 16 bytes of an
 * XChaCha20 nonce). out may alias key. Cannot fail. */
void zl_hchacha20_derive(uint8_t out[ZL_CHACHA20_KEY_SIZE], const uint8_t key[ZL_CHACHA20_KEY_SIZE],
                         const uint8_t input[ZL_HCHACHA20_INPUT_SIZE]);

/* ---- Poly1305 (RFC 8439 section 2.5) ---- */

/* A Poly1305 computation in progress. Caller-owned; its fields are
 * private (and secret: zl_poly1305_final wipes them). */
/* With a 128-bit product (ZL_POLY1305_WIDE: the compiler has unsigned
 * __int128, as 64-bit hosts do) the numbers are three 44-bit limbs, else
 * five 26-bit limbs with 32x32->64 products. Defining ZL_CRYPTO_PORTABLE
 * (for the whole build) takes the 32-bit code here and one ChaCha20 block
 * at a time everywhere, so a host can test what small targets run. */
#if defined(__SIZEOF_INT128__) && !defined(ZL_CRYPTO_PORTABLE)
#define ZL_POLY1305_WIDE 1
typedef uint64_t zl_poly1305_limb;
#define ZL_POLY1305_LIMBS 3
#else
typedef uint32_t zl_poly1305_limb;
#define ZL_POLY1305_LIMBS 5
#endif
typedef struct zl_poly1305 {
    zl_poly1305_limb r[ZL_POLY1305_LIMBS]; /* the clamped half r of the key */
#ifdef ZL_POLY1305_WIDE
    zl_poly1305_limb rr[ZL_POLY1305_LIMBS]; /* r^2, for two blocks at a time */
#endif
    zl_poly1305_limb h[ZL_POLY1305_LIMBS]; /* accumulator, partly reduced */
    uint32_t s[4];   /* the half s of the key, added at the end */
    uint8_t buf[16]; /* a partial block waiting for more bytes */
    size_t used;     /* bytes in buf, 0..15 */
} zl_poly1305;

/* Starts a MAC under the 32-byte one-time key, copied into *p (never use a
 * key for two messages: the AEADs below derive a fresh one per nonce). */
void zl_poly1305_init(zl_poly1305 *p, const uint8_t key[ZL_POLY1305_KEY_SIZE]);

/* Adds len bytes at data (read only; NULL when len is 0) to the message.
 * A message fed in pieces gives the tag of the whole. */
void zl_poly1305_update(zl_poly1305 *p, const void *data, size_t len);

/* Writes the 16-byte tag to tag and wipes *p; start again with
 * zl_poly1305_init. */
void zl_poly1305_final(zl_poly1305 *p, uint8_t tag[ZL_POLY1305_TAG_SIZE]);

/* ---- ChaCha20-Poly1305 (RFC 8439 section 2.8) ---- */

/* Encrypts the len bytes at in under key and nonce and authenticates them
 * with the aad_len bytes at aad (sent in clear, e.g. a packet header).
 * Writes len bytes of ciphertext then the ZL_AEAD_TAG_SIZE-byte tag to out,
 * which has room for out_cap bytes. out may equal in (a packet sealed in
 * place, with ZL_AEAD_TAG_SIZE bytes spare after it) but must not
 * otherwise overlap in; aad may lie anywhere outside out. A nonce must
 * never be used twice with one key. Buffers are the caller's; in and aad
 * may be NULL when their length is 0.
 * Returns len + ZL_AEAD_TAG_SIZE, or, with nothing written:
 * ZL_ERR_OVERFLOW when out_cap is smaller than that; ZL_ERR_INVALID when
 * that count would not fit an int. */
int zl_chacha20poly1305_seal(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                             const uint8_t *aad, size_t aad_len,
                             const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                             const uint8_t key[ZL_AEAD_KEY_SIZE]);

/* One packet of zl_chacha20poly1305_seal_many: the arguments of
 * zl_chacha20poly1305_seal (the caller's), and its return in result. */
typedef struct zl_aead_seal_job {
    uint8_t *out;
    size_t out_cap;
    const uint8_t *in;
    size_t len;
    const uint8_t *aad;
    size_t aad_len;
    const uint8_t *nonce; /* ZL_AEAD_NONCE_SIZE bytes */
    const uint8_t *key;   /* ZL_AEAD_KEY_SIZE bytes */
    int result;
} zl_aead_seal_job;

/* zl_chacha20poly1305_seal of each of job[0..n-1], the same bytes and
 * results, with the keystreams of up to ZL_AEAD_LANES_MAX packets made
 * side by side (zl_aead_lanes_xor) where the path has vector lanes. No
 * packet's out may overlap another's buffers. n may be 0 (job NULL). */
void zl_chacha20poly1305_seal_many(zl_aead_seal_job *job, size_t n);

/* Checks and decrypts what zl_chacha20poly1305_seal wrote: the len bytes at
 * in are ciphertext followed by the tag, aad and nonce as at sealing. The
 * tag is verified in constant time before anything is decrypted, and only
 * then are the len - ZL_AEAD_TAG_SIZE bytes of plaintext written to out
 * (room for out_cap bytes; out may equal in, not otherwise overlap it).
 * Returns the plaintext length, or, with nothing written to out:
 * ZL_ERR_MALFORMED when len is shorter than a tag; ZL_ERR_OVERFLOW when
 * out_cap is too small; ZL_ERR_INVALID when len does not fit an int;
 * ZL_ERR_AUTH when the tag does not match (forged, tampered, truncated, or
 * another key, nonce or aad): drop the packet. */
int zl_chacha20poly1305_open(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                             const uint8_t *aad, size_t aad_len,
                             const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                             const uint8_t key[ZL_AEAD_KEY_SIZE]);

/* As zl_chacha20poly1305_open, taking the keystream head from *a (made by
 * zl_aead_ahead_make) when a is not NULL and its key and nonce are key and
 * nonce (compared in constant time), else making it as
 * zl_chacha20poly1305_open does: the same results either way. */
int zl_chacha20poly1305_open_ahead(const zl_aead_ahead *a, uint8_t *out, size_t out_cap,
                                   const uint8_t *in, size_t len, const uint8_t *aad,
                                   size_t aad_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                                   const uint8_t key[ZL_AEAD_KEY_SIZE]);

/* ---- XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha) ---- */

/* As zl_chacha20poly1305_seal / _open with a 24-byte nonce, long enough to
 * draw at random (connect tokens): HChaCha20 of the key and the nonce's
 * first 16 bytes is the key, 4 zero bytes then its last 8 the nonce. Same
 * buffers, results and errors. */
int zl_xchacha20poly1305_seal(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                              const uint8_t *aad, size_t aad_len,
                              const uint8_t nonce[ZL_XAEAD_NONCE_SIZE],
                              const uint8_t key[ZL_AEAD_KEY_SIZE]);
int zl_xchacha20poly1305_open(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                              const uint8_t *aad, size_t aad_len,
                              const uint8_t nonce[ZL_XAEAD_NONCE_SIZE],
                              const uint8_t key[ZL_AEAD_KEY_SIZE]);

/* ---- A port's own AEAD ---- */

/* The per-packet AEAD as a pair of functions sharing a context, so a port
 * can hand the work to a hardware engine (a console's or an MCU's crypto
 * block). Both ends of a connection must produce the same bytes, so an
 * engine implements ChaCha20-Poly1305 exactly: seal and open take the
 * arguments of zl_chacha20poly1305_seal / _open (ctx first) and keep their
 * contract: results, errors, in-place use, and nothing written to out when
 * open fails. The struct is small and copied by value; ctx is owned by
 * whoever filled it in. */
typedef struct zl_aead {
    void *ctx;
    int (*seal)(void *ctx, uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                const uint8_t *aad, size_t aad_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                const uint8_t key[ZL_AEAD_KEY_SIZE]);
    int (*open)(void *ctx, uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                const uint8_t *aad, size_t aad_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                const uint8_t key[ZL_AEAD_KEY_SIZE]);
} zl_aead;

/* Fills *aead with the built-in software ChaCha20-Poly1305 (ctx NULL): the
 * default wherever a port supplies no engine. */
void zl_aead_default(zl_aead *aead);

/* 1 when *aead is the built-in AEAD (zl_aead_default), else 0. */
int zl_aead_is_default(const zl_aead *aead);

/* Fills *aead with the built-in AEAD whose open is
 * zl_chacha20poly1305_open_ahead with a (ctx, kept: a must outlive the
 * hook's use). */
void zl_aead_with_ahead(zl_aead *aead, const zl_aead_ahead *a);

ZL_END_DECLS

#endif
