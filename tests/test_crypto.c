/* test_crypto.c - the crypto primitives against published answers (RFC 8439,
 * the XChaCha draft, every Wycheproof vector) and the properties packets
 * rely on: in-place use, every tampered byte refused, nothing released. */
#include <string.h>

#include "zl_crypto.h"
#include "zl_test.h"

#include "vectors/wycheproof_aead.h"

/* Large enough for every vector: Wycheproof's longest message is 513 bytes. */
#define BUF 1024

/* Hex digits to bytes; a malformed string is a bug in this file. */
static size_t unhex(uint8_t *out, size_t cap, const char *hex)
{
    size_t n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        unsigned v = 0;
        int i;
        for (i = 0; i < 2; i++) {
            char c = hex[i];
            v = v * 16u + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        ZL_ASSERT(n < cap);
        out[n++] = (uint8_t)v;
    }
    ZL_ASSERT(*hex == 0);
    return n;
}

/* first, first + 1, ...: the RFC's keys 00..1f and 80..9f. */
static void counting(uint8_t *out, size_t n, uint8_t first)
{
    size_t i;
    for (i = 0; i < n; i++)
        out[i] = (uint8_t)(first + i);
}

static int equal_hex(const uint8_t *got, size_t len, const char *want_hex)
{
    uint8_t want[BUF];
    return unhex(want, sizeof want, want_hex) == len && memcmp(got, want, len) == 0;
}

/* RFC 8439 A.2 #2 and A.3 #2, #3. */
static const char ietf_text[] =
    "Any submission to the IETF intended by the Contributor for publication as all or part of "
    "an IETF Internet-Draft or RFC and any statement made within the context of an IETF "
    "activity is considered an \"IETF Contribution\". Such statements include oral statements "
    "in IETF sessions, as well as written and electronic communications made at any time or "
    "place, which are addressed to";
/* RFC 8439 A.2 #3 and A.3 #4. */
static const char jabberwocky[] = "'Twas brillig, and the slithy toves\nDid gyre and gimble in the "
                                  "wabe:\nAll mimsy were the borogoves,\nAnd the mome raths outgrabe.";
/* RFC 8439 2.4.2 and 2.8.2, the XChaCha draft A.3.1. */
static const char sunscreen[] = "Ladies and Gentlemen of the class of '99: If I could offer you "
                                "only one tip for the future, sunscreen would be it.";
static const char key_1c92[] = "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0";
static const char key_last1[] = "0000000000000000000000000000000000000000000000000000000000000001";

/* A ChaCha20 known answer: NULL text means zeros (the output is keystream). */
typedef struct chacha_kat {
    const char *name, *key, *nonce;
    uint32_t counter;
    const char *text, *cipher;
} chacha_kat;

static const chacha_kat chacha_kats[] = {
    {"2.3.2 block", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     "000000090000004a00000000", 1, NULL,
     "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
     "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"},
    {"2.4.2 sunscreen", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     "000000000000004a00000000", 1, sunscreen,
     "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
     "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
     "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
     "5af90bbf74a35be6b40b8eedf2785e42874d"},
    /* A.1 #1 is also A.2 #1 (zero key, nonce, counter and text). */
    {"A.1 #1", "0000000000000000000000000000000000000000000000000000000000000000",
     "000000000000000000000000", 0, NULL,
     "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
     "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"},
    {"A.1 #2", "0000000000000000000000000000000000000000000000000000000000000000",
     "000000000000000000000000", 1, NULL,
     "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
     "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"},
    {"A.1 #3", key_last1, "000000000000000000000000", 1, NULL,
     "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
     "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0"},
    {"A.1 #4", "00ff000000000000000000000000000000000000000000000000000000000000",
     "000000000000000000000000", 2, NULL,
     "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca"
     "13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096"},
    {"A.1 #5", "0000000000000000000000000000000000000000000000000000000000000000",
     "000000000000000000000002", 0, NULL,
     "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7"
     "8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d"},
    {"A.2 #2", key_last1, "000000000000000000000002", 1, ietf_text,
     "a3fbf07df3fa2fde4f376ca23e827370" "41605d9f4f4f57bd8cff2c1d4b7955ec"
     "2a97948bd3722915c8f3d337f7d37005" "0e9e96d647b7c39f56e031ca5eb6250d"
     "4042e02785ececfa4b4bb5e8ead0440e" "20b6e8db09d881a7c6132f420e527950"
     "42bdfa7773d8a9051447b3291ce1411c" "680465552aa6c405b7764d5e87bea85a"
     "d00f8449ed8f72d0d662ab052691ca66" "424bc86d2df80ea41f43abf937d3259d"
     "c4b2d0dfb48a6c9139ddd7f76966e928" "e635553ba76c5c879d7b35d49eb2e62b"
     "0871cdac638939e25e8a1e0ef9d5280f" "a8ca328b351c3c765989cbcf3daa8b6c"
     "cc3aaf9f3979c92b3720fc88dc95ed84" "a1be059c6499b9fda236e7e818b04b0b"
     "c39c1e876b193bfe5569753f88128cc0" "8aaa9b63d1a16f80ef2554d7189c411f"
     "5869ca52c5b83fa36ff216b9c1d30062" "bebcfd2dc5bce0911934fda79a86f6e6"
     "98ced759c3ff9b6477338f3da4f9cd85" "14ea9982ccafb341b2384dd902f3d1ab"
     "7ac61dd29c6f21ba5b862f3730e37cfd" "c4fd806c22f221"},
    {"A.2 #3", key_1c92, "000000000000000000000002", 42, jabberwocky,
     "62e6347f95ed87a45ffae7426f27a1df" "5fb69110044c0d73118effa95b01e5cf"
     "166d3df2d721caf9b21e5fb14c616871" "fd84c54f9d65b283196c7fe4f60553eb"
     "f39c6402c42234e32a356b3e764312a6" "1a5532055716ead6962568f87d3f3f77"
     "04c6a8d1bcd1bf4d50d6154b6da731b1" "87b58dfd728afa36757a797ac188d1"},
    /* 2.6.2 and A.4: the one-time Poly1305 key is block 0's first 32 bytes. */
    {"2.6.2 key", "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
     "000000000001020304050607", 0, NULL,
     "8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646"},
    {"A.4 #2", key_last1, "000000000000000000000002", 0, NULL,
     "ecfa254f845f647473d3cb140da9e87606cb33066c447b87bc2666dde3fbb739"},
    {"A.4 #3", key_1c92, "000000000000000000000002", 0, NULL,
     "965e3bc6f9ec7ed9560808f4d229f94b137ff275ca9b3fcbdd59deaad23310ae"},
};

static void test_crypto_chacha20_rfc(void)
{
    size_t i;
    for (i = 0; i < ZL_COUNTOF(chacha_kats); i++) {
        const chacha_kat *k = &chacha_kats[i];
        uint8_t key[32], nonce[12], text[BUF], out[BUF], want[BUF];
        size_t len = unhex(want, sizeof want, k->cipher);
        unhex(key, sizeof key, k->key);
        unhex(nonce, sizeof nonce, k->nonce);
        memset(text, 0, sizeof text);
        if (k->text)
            memcpy(text, k->text, strlen(k->text));
        ZL_CHECK(k->text == NULL || strlen(k->text) == len);
        ZL_CHECK_EQ(zl_chacha20_xor(out, text, len, key, nonce, k->counter), ZL_OK);
        if (!ZL_CHECK(memcmp(out, want, len) == 0))
            zl_test_note("%s: wrong ciphertext", k->name);
        /* Decryption is the same operation. */
        ZL_CHECK_EQ(zl_chacha20_xor(out, out, len, key, nonce, k->counter), ZL_OK);
        ZL_CHECK(memcmp(out, text, len) == 0);
    }
}

/* A Poly1305 known answer; text is hex unless ascii is set. */
typedef struct poly_kat {
    const char *name, *key, *text;
    int ascii;
    const char *tag;
} poly_kat;

static const poly_kat poly_kats[] = {
    {"2.5.2", "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b",
     "Cryptographic Forum Research Group", 1, "a8061dc1305136c6c22b8baf0c0127a9"},
    {"A.3 #1", "0000000000000000000000000000000000000000000000000000000000000000",
     "0000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000000000000000000000000000000000000000000000000000000",
     0, "00000000000000000000000000000000"},
    {"A.3 #2", "0000000000000000000000000000000036e5f6b5c5e06070f0efca96227a863e", ietf_text, 1,
     "36e5f6b5c5e06070f0efca96227a863e"},
    {"A.3 #3", "36e5f6b5c5e06070f0efca96227a863e00000000000000000000000000000000", ietf_text, 1,
     "f3477e7cd95417af89a6b8794c310cf0"},
    {"A.3 #4", key_1c92, jabberwocky, 1, "4541669a7eaaee61e708dc7cbcc5eb62"},
    {"A.3 #5", "0200000000000000000000000000000000000000000000000000000000000000",
     "ffffffffffffffffffffffffffffffff", 0, "03000000000000000000000000000000"},
    {"A.3 #6", "02000000000000000000000000000000ffffffffffffffffffffffffffffffff",
     "02000000000000000000000000000000", 0, "03000000000000000000000000000000"},
    {"A.3 #7", "0100000000000000000000000000000000000000000000000000000000000000",
     "ffffffffffffffffffffffffffffffff" "f0ffffffffffffffffffffffffffffff"
     "11000000000000000000000000000000",
     0, "05000000000000000000000000000000"},
    {"A.3 #8", "0100000000000000000000000000000000000000000000000000000000000000",
     "ffffffffffffffffffffffffffffffff" "fbfefefefefefefefefefefefefefefe"
     "01010101010101010101010101010101",
     0, "00000000000000000000000000000000"},
    {"A.3 #9", "0200000000000000000000000000000000000000000000000000000000000000",
     "fdffffffffffffffffffffffffffffff", 0, "faffffffffffffffffffffffffffffff"},
    {"A.3 #10", "0100000000000000040000000000000000000000000000000000000000000000",
     "e33594d7505e43b90000000000000000" "3394d7505e4379cd0100000000000000"
     "00000000000000000000000000000000" "01000000000000000000000000000000",
     0, "14000000000000005500000000000000"},
    {"A.3 #11", "0100000000000000040000000000000000000000000000000000000000000000",
     "e33594d7505e43b90000000000000000" "3394d7505e4379cd0100000000000000"
     "00000000000000000000000000000000",
     0, "13000000000000000000000000000000"},
    /* Not in the RFC (the tag is Python's cryptography's): with r = 1 the
     * third all-ones block leaves h = 2^130 + 2^129 - 3, whose fold of 5
     * carries through all four low limbs into the top one; the fourth
     * block shows whether that carry was kept. */
    {"carry through every limb",
     "0100000000000000000000000000000000000000000000000000000000000000",
     "ffffffffffffffffffffffffffffffff" "ffffffffffffffffffffffffffffffff"
     "ffffffffffffffffffffffffffffffff" "ffffffffffffffffffffffffffffffff",
     0, "06000000000000000000000000000000"},
};

static void poly1305(uint8_t tag[16], const uint8_t *m, size_t len, const uint8_t key[32])
{
    zl_poly1305 p;
    zl_poly1305_init(&p, key);
    zl_poly1305_update(&p, m, len);
    zl_poly1305_final(&p, tag);
}

static void test_crypto_poly1305_rfc(void)
{
    size_t i;
    for (i = 0; i < ZL_COUNTOF(poly_kats); i++) {
        const poly_kat *k = &poly_kats[i];
        uint8_t key[32], text[BUF], tag[16];
        size_t len;
        unhex(key, sizeof key, k->key);
        if (k->ascii) {
            len = strlen(k->text);
            memcpy(text, k->text, len);
        } else {
            len = unhex(text, sizeof text, k->text);
        }
        poly1305(tag, text, len, key);
        if (!ZL_CHECK(equal_hex(tag, 16, k->tag)))
            zl_test_note("%s: wrong tag", k->name);
    }
}

/* The message in pieces of every size gives the tag of the whole. */
static void test_crypto_poly1305_pieces(void)
{
    uint8_t key[32], msg[200], whole[16], tag[16];
    zl_test_rng rng;
    size_t i, piece;
    zl_test_rng_seed(&rng, 1305);
    for (i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)zl_test_rng_u32(&rng);
    for (i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)zl_test_rng_u32(&rng);
    poly1305(whole, msg, sizeof msg, key);
    for (piece = 1; piece <= 40; piece++) {
        zl_poly1305 p;
        zl_poly1305_init(&p, key);
        for (i = 0; i < sizeof msg; i += piece)
            zl_poly1305_update(&p, msg + i, i + piece <= sizeof msg ? piece : sizeof msg - i);
        zl_poly1305_update(&p, NULL, 0);
        zl_poly1305_final(&p, tag);
        ZL_CHECK(memcmp(tag, whole, 16) == 0);
    }
}

/* The keystream does not care where the calls split it. */
static void test_crypto_chacha20_blocks(void)
{
    /* Eleven blocks: passes of several blocks start at every offset. */
    uint8_t key[32], nonce[12], zero[704], whole[704], part[704];
    zl_chacha20 c;
    size_t split;
    counting(key, sizeof key, 7);
    counting(nonce, sizeof nonce, 40);
    memset(zero, 0, sizeof zero);
    ZL_CHECK_EQ(zl_chacha20_xor(whole, zero, sizeof zero, key, nonce, 5), ZL_OK);
    for (split = 0; split <= sizeof zero; split += 64) {
        ZL_CHECK_EQ(zl_chacha20_xor(part, zero, split, key, nonce, 5), ZL_OK);
        ZL_CHECK_EQ(zl_chacha20_xor(part + split, zero, sizeof zero - split, key, nonce,
                                    5u + (uint32_t)(split / 64)),
                    ZL_OK);
        ZL_CHECK(memcmp(part, whole, sizeof whole) == 0);
        /* The same pieces continuing one keystream. */
        zl_chacha20_start(&c, key, nonce, 5);
        zl_chacha20_stream(&c, part, zero, split);
        zl_chacha20_stream(&c, part + split, zero, sizeof zero - split);
        ZL_CHECK(memcmp(part, whole, sizeof whole) == 0);
    }
}

/* The AEADs' first pass: the first half of block 0's keystream and that
 * of the first k payload bytes, k all of a short payload or whole blocks,
 * as the plain keystream from block 0 has them; the stream goes on from
 * there. */
static void test_crypto_chacha20_head(void)
{
    static const size_t lens[] = {0, 1, 63, 64, 65, 200, 255, 256, 257, 511, 512, 513, 1000};
    uint8_t key[32], nonce[12], zero[ZL_CHACHA20_BLOCK_SIZE + ZL_CHACHA20_HEAD_MAX];
    uint8_t head[sizeof zero], stream[sizeof zero], next[ZL_CHACHA20_BLOCK_SIZE];
    zl_chacha20 c;
    size_t i, k;
    counting(key, sizeof key, 3);
    counting(nonce, sizeof nonce, 90);
    memset(zero, 0, sizeof zero);
    ZL_CHECK_EQ(zl_chacha20_xor(stream, zero, sizeof zero, key, nonce, 0), ZL_OK);
    for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        zl_chacha20_start(&c, key, nonce, 0);
        k = zl_chacha20_head(&c, head, lens[i]);
        ZL_CHECK(k <= lens[i] && k <= ZL_CHACHA20_HEAD_MAX);
        ZL_CHECK(k == lens[i] || k % ZL_CHACHA20_BLOCK_SIZE == 0);
        ZL_CHECK(memcmp(head, stream, ZL_POLY1305_KEY_SIZE) == 0);
        ZL_CHECK(memcmp(head + ZL_CHACHA20_BLOCK_SIZE, stream + ZL_CHACHA20_BLOCK_SIZE, k) == 0);
        if (k < lens[i] && k < ZL_CHACHA20_HEAD_MAX) {
            zl_chacha20_stream(&c, next, zero, sizeof next);
            ZL_CHECK(memcmp(next, stream + ZL_CHACHA20_BLOCK_SIZE + k, sizeof next) == 0);
        }
    }
}

/* The 32-bit block counter never wraps: the last block is usable, the one
 * after it refused with nothing written. */
static void test_crypto_chacha20_counter_limit(void)
{
    uint8_t key[32], nonce[12], buf[130];
    counting(key, sizeof key, 0);
    counting(nonce, sizeof nonce, 0);
    memset(buf, 0xA5, sizeof buf);
    ZL_CHECK_EQ(zl_chacha20_xor(buf, buf, 64, key, nonce, 0xFFFFFFFFu), ZL_OK);
    ZL_CHECK_EQ(zl_chacha20_xor(buf, buf, 128, key, nonce, 0xFFFFFFFEu), ZL_OK);
    memset(buf, 0xA5, sizeof buf);
    ZL_CHECK_EQ(zl_chacha20_xor(buf, buf, 65, key, nonce, 0xFFFFFFFFu), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_chacha20_xor(buf, buf, 129, key, nonce, 0xFFFFFFFEu), ZL_ERR_INVALID);
    ZL_CHECK(buf[0] == 0xA5 && buf[64] == 0xA5 && buf[129] == 0xA5);
    ZL_CHECK_EQ(zl_chacha20_xor(NULL, NULL, 0, key, nonce, 0xFFFFFFFFu), ZL_OK);
}

/* draft-irtf-cfrg-xchacha 2.2.1: HChaCha20, also in place over the key. */
static void test_crypto_hchacha20_draft(void)
{
    uint8_t key[32], input[16], subkey[32];
    counting(key, sizeof key, 0);
    unhex(input, sizeof input, "000000090000004a0000000031415927");
    zl_hchacha20_derive(subkey, key, input);
    ZL_CHECK(equal_hex(subkey, 32,
                       "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc"));
    zl_hchacha20_derive(key, key, input);
    ZL_CHECK(memcmp(key, subkey, 32) == 0);
}

/* One of the two AEADs, chosen per test. */
typedef int (*aead_fn)(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                       const uint8_t *aad, size_t aad_len, const uint8_t *nonce,
                       const uint8_t *key);

typedef struct aead_kind {
    const char *name;
    aead_fn seal, open;
    size_t nonce_size;
} aead_kind;

/* Not const: the multi-buffer tests swap in the opens through a batch. */
static aead_kind kinds[2] = {
    {"ChaCha20-Poly1305", zl_chacha20poly1305_seal, zl_chacha20poly1305_open, ZL_AEAD_NONCE_SIZE},
    {"XChaCha20-Poly1305", zl_xchacha20poly1305_seal, zl_xchacha20poly1305_open,
     ZL_XAEAD_NONCE_SIZE},
};

/* An AEAD known answer: text sealed gives sealed (ciphertext and tag),
 * and sealed opens to text. */
typedef struct aead_kat {
    const char *name;
    const aead_kind *kind;
    const char *key, *nonce, *aad, *text, *sealed;
} aead_kat;

static const char key_80[] = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f";

static const aead_kat aead_kats[] = {
    {"RFC 8439 2.8.2", &kinds[0], key_80, "070000004041424344454647", "50515253c0c1c2c3c4c5c6c7",
     sunscreen,
     "d31a8d34648e60db7b86afbc53ef7ec2" "a4aded51296e08fea9e2b5a736ee62d6"
     "3dbea45e8ca9671282fafb69da92728b" "1a71de0a9e060b2905d6a5b67ecd3b36"
     "92ddbd7f2d778b8c9803aee328091b58" "fab324e4fad675945585808b4831d7bc"
     "3ff4def08e4b7a9de576d26586cec64b" "6116"
     "1ae10b594f09e26a7e902ecbd0600691"},
    /* A.5: a received message, checked then decrypted. */
    {"RFC 8439 A.5", &kinds[0], key_1c92, "000000000102030405060708", "f33388860000000000004e91",
     "Internet-Drafts are draft documents valid for a maximum of six months and may be "
     "updated, replaced, or obsoleted by other documents at any time. It is inappropriate to "
     "use Internet-Drafts as reference material or to cite them other than as /\xe2\x80\x9c"
     "work in progress./\xe2\x80\x9d",
     "64a0861575861af460f062c79be643bd" "5e805cfd345cf389f108670ac76c8cb2"
     "4c6cfc18755d43eea09ee94e382d26b0" "bdb7b73c321b0100d4f03b7f355894cf"
     "332f830e710b97ce98c8a84abd0b9481" "14ad176e008d33bd60f982b1ff37c855"
     "9797a06ef4f0ef61c186324e2b350638" "3606907b6a7c02b0f9f6157b53c867e4"
     "b9166c767b804d46a59b5216cde7a4e9" "9040c5a40433225ee282a1b0a06c523e"
     "af4534d7f83fa1155b0047718cbc546a" "0d072b04b3564eea1b422273f548271a"
     "0bb2316053fa76991955ebd63159434e" "cebb4e466dae5a1073a6727627097a10"
     "49e617d91d361094fa68f0ff77987130" "305beaba2eda04df997b714d6c6f2c29"
     "a6ad5cb4022b02709b"
     "eead9d67890cbb22392336fea1851f38"},
    {"XChaCha draft A.3.1", &kinds[1], key_80,
     "404142434445464748494a4b4c4d4e4f5051525354555657", "50515253c0c1c2c3c4c5c6c7", sunscreen,
     "bd6d179d3e83d43b9576579493c0e939" "572a1700252bfaccbed2902c21396cbb"
     "731c7f1b0b4aa6440bf3a82f4eda7e39" "ae64c6708c54c216cb96b72e1213b452"
     "2f8c9ba40db5d945b11b69b982c1bb9e" "3f3fac2bc369488f76b2383565d3fff9"
     "21f9664c97637da9768812f615c68b13" "b52e"
     "c0875924c1c7987947deafd8780acf49"},
};

static void test_crypto_aead_published(void)
{
    size_t i;
    for (i = 0; i < ZL_COUNTOF(aead_kats); i++) {
        const aead_kat *k = &aead_kats[i];
        uint8_t key[32], nonce[24], aad[16], sealed[BUF], out[BUF];
        size_t text_len = strlen(k->text), aad_len = unhex(aad, sizeof aad, k->aad);
        size_t sealed_len = unhex(sealed, sizeof sealed, k->sealed);
        int sealed_right;
        unhex(key, sizeof key, k->key);
        ZL_CHECK_EQ(unhex(nonce, sizeof nonce, k->nonce), k->kind->nonce_size);
        ZL_CHECK_EQ(sealed_len, text_len + 16);
        ZL_CHECK_EQ(k->kind->seal(out, sizeof out, (const uint8_t *)k->text, text_len, aad,
                                  aad_len, nonce, key),
                    (int)sealed_len);
        sealed_right = memcmp(out, sealed, sealed_len) == 0;
        ZL_CHECK_EQ(k->kind->open(out, sizeof out, sealed, sealed_len, aad, aad_len, nonce, key),
                    (int)text_len);
        if (!ZL_CHECK(sealed_right && memcmp(out, k->text, text_len) == 0))
            zl_test_note("%s: wrong output", k->name);
    }
}

/* Every vector: a valid one opens to its message and seals back to its
 * ciphertext and tag; an invalid one fails to open and writes nothing. A
 * nonce of another size cannot be passed (the nonce is a fixed array), so
 * those vectors go in with the nonce cut or zero-filled to size: they carry
 * no tag, and must fail on that alone. */
/* 1 while the vectors run through batches: their counts are noted once. */
static int batch_quiet;

static void check_wycheproof(const aead_kind *kind, const wycheproof_aead *v, size_t count)
{
    static uint8_t in[BUF], out[BUF];
    size_t i, valid = 0, invalid = 0, failed = 0;
    for (i = 0; i < count; i++, v++) {
        const uint8_t *key = wycheproof_pool + v->key, *aad = wycheproof_pool + v->aad;
        uint8_t nonce[ZL_XAEAD_NONCE_SIZE] = {0};
        size_t len = (size_t)v->msg_len + v->tag_len;
        int r, ok;
        memcpy(nonce, wycheproof_pool + v->nonce,
               v->nonce_len < kind->nonce_size ? v->nonce_len : kind->nonce_size);
        memcpy(in, wycheproof_pool + v->ct, v->msg_len);
        memcpy(in + v->msg_len, wycheproof_pool + v->tag, v->tag_len);
        memset(out, 0xA5, sizeof out);
        r = kind->open(out, sizeof out, in, len, aad, v->aad_len, nonce, key);
        if (v->valid) {
            ok = v->nonce_len == kind->nonce_size && r == v->msg_len &&
                 memcmp(out, wycheproof_pool + v->msg, v->msg_len) == 0 &&
                 kind->seal(out, sizeof out, wycheproof_pool + v->msg, v->msg_len, aad,
                            v->aad_len, nonce, key) == (int)len &&
                 memcmp(out, in, len) == 0;
            valid++;
        } else {
            ok = r < 0 && out[0] == 0xA5 && out[v->msg_len] == 0xA5;
            invalid++;
        }
        if (!ZL_CHECK(ok))
            zl_test_note("%s tcId %u: open returned %d", kind->name, (unsigned)v->id, r);
        failed += !ok;
    }
    if (!batch_quiet)
        zl_test_note("%s: %u Wycheproof vectors, %u valid opened and resealed, %u invalid refused",
                     kind->name, (unsigned)count, (unsigned)valid, (unsigned)(invalid));
    ZL_CHECK_EQ(failed, 0);
}

static void test_crypto_wycheproof_chacha20poly1305(void)
{
    ZL_CHECK_EQ(ZL_COUNTOF(wycheproof_chacha20poly1305), 325);
    check_wycheproof(&kinds[0], wycheproof_chacha20poly1305,
                     ZL_COUNTOF(wycheproof_chacha20poly1305));
}

static void test_crypto_wycheproof_xchacha20poly1305(void)
{
    ZL_CHECK_EQ(ZL_COUNTOF(wycheproof_xchacha20poly1305), 315);
    check_wycheproof(&kinds[1], wycheproof_xchacha20poly1305,
                     ZL_COUNTOF(wycheproof_xchacha20poly1305));
}

/* Random key, nonce, aad and message from the seeded generator. */
typedef struct sample {
    uint8_t key[32], nonce[24], aad[40], msg[300];
} sample;

static void fill(zl_test_rng *rng, uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)zl_test_rng_u32(rng);
}

static void make_sample(sample *s, uint64_t seed)
{
    zl_test_rng rng;
    zl_test_rng_seed(&rng, seed);
    fill(&rng, s->key, sizeof s->key);
    fill(&rng, s->nonce, sizeof s->nonce);
    fill(&rng, s->aad, sizeof s->aad);
    fill(&rng, s->msg, sizeof s->msg);
}

/* A packet sealed and opened in place is byte for byte what separate
 * buffers give, at every length around the 16- and 64-byte boundaries. */
static void test_crypto_in_place(void)
{
    static sample s;
    static uint8_t apart[sizeof s.msg + 16], here[sizeof s.msg + 16], back[sizeof s.msg];
    size_t k, len;
    make_sample(&s, 23);
    for (k = 0; k < 2; k++) {
        const aead_kind *kind = &kinds[k];
        for (len = 0; len <= sizeof s.msg; len += len < 140 ? 1 : 37) {
            int n = kind->seal(apart, sizeof apart, s.msg, len, s.aad, 13, s.nonce, s.key);
            memcpy(here, s.msg, len);
            ZL_CHECK_EQ(kind->seal(here, len + 16, here, len, s.aad, 13, s.nonce, s.key), n);
            ZL_CHECK(memcmp(here, apart, (size_t)n) == 0);
            ZL_CHECK_EQ(kind->open(here, len, here, (size_t)n, s.aad, 13, s.nonce, s.key),
                        (int)len);
            ZL_CHECK(memcmp(here, s.msg, len) == 0);
            ZL_CHECK_EQ(kind->open(back, sizeof back, apart, (size_t)n, s.aad, 13, s.nonce,
                                   s.key),
                        (int)len);
            ZL_CHECK(memcmp(back, s.msg, len) == 0);
        }
    }
    /* The stream cipher in place too. */
    memcpy(here, s.msg, sizeof s.msg);
    ZL_CHECK_EQ(zl_chacha20_xor(apart, s.msg, sizeof s.msg, s.key, s.nonce, 9), ZL_OK);
    ZL_CHECK_EQ(zl_chacha20_xor(here, here, sizeof s.msg, s.key, s.nonce, 9), ZL_OK);
    ZL_CHECK(memcmp(here, apart, sizeof s.msg) == 0);
}

/* Opens a copy of the sealed bytes after flipping one bit at `at` in the
 * sealed bytes (at < n), in the aad (at >= n), then restores it. Returns
 * the result; out must be untouched. */
static int open_flipped(const aead_kind *kind, sample *s, uint8_t *sealed, size_t n, size_t at,
                        size_t aad_len)
{
    static uint8_t out[sizeof s->msg];
    uint8_t *p = at < n ? sealed + at : s->aad + (at - n);
    uint8_t bit = (uint8_t)(1u << (at % 8));
    int r;
    memset(out, 0xA5, sizeof out);
    *p ^= bit;
    r = kind->open(out, sizeof out, sealed, n, s->aad, aad_len, s->nonce, s->key);
    *p ^= bit;
    ZL_CHECK(out[0] == 0xA5 && out[n - 17] == 0xA5);
    return r;
}

/* Every byte of ciphertext, tag and aad, every byte of nonce and key, and
 * every truncation or extension: refused, with nothing written. */
static void test_crypto_tamper_refused(void)
{
    static sample s;
    static uint8_t sealed[100 + 16 + 1], out[100 + 1];
    const size_t len = 100, aad_len = 20, n = len + 16;
    size_t k, at, refused = 0, tries = 0;
    make_sample(&s, 77);
    for (k = 0; k < 2; k++) {
        const aead_kind *kind = &kinds[k];
        ZL_CHECK_EQ(kind->seal(sealed, sizeof sealed, s.msg, len, s.aad, aad_len, s.nonce, s.key),
                    (int)n);
        for (at = 0; at < n + aad_len; at++, tries++)
            refused += open_flipped(kind, &s, sealed, n, at, aad_len) == ZL_ERR_AUTH;
        for (at = 0; at < kind->nonce_size + sizeof s.key; at++, tries++) {
            uint8_t *p = at < kind->nonce_size ? s.nonce + at : s.key + (at - kind->nonce_size);
            *p ^= 0x40;
            refused += kind->open(out, sizeof out, sealed, n, s.aad, aad_len, s.nonce, s.key) ==
                       ZL_ERR_AUTH;
            *p ^= 0x40;
        }
        /* Shorter by any amount, or one byte longer, or with the aad cut. */
        for (at = 0; at < n; at++, tries++) {
            int r = kind->open(out, sizeof out, sealed, at, s.aad, aad_len, s.nonce, s.key);
            refused += r == (at < 16 ? ZL_ERR_MALFORMED : ZL_ERR_AUTH);
        }
        sealed[n] = 0;
        refused += kind->open(out, sizeof out, sealed, n + 1, s.aad, aad_len, s.nonce, s.key) ==
                   ZL_ERR_AUTH;
        refused += kind->open(out, sizeof out, sealed, n, s.aad, aad_len - 1, s.nonce, s.key) ==
                   ZL_ERR_AUTH;
        tries += 2;
        /* And the untouched packet still opens. */
        ZL_CHECK_EQ(kind->open(out, sizeof out, sealed, n, s.aad, aad_len, s.nonce, s.key),
                    (int)len);
        ZL_CHECK(memcmp(out, s.msg, len) == 0);
    }
    ZL_CHECK_EQ(refused, tries);
    zl_test_note("%u tampered packets, %u refused", (unsigned)tries, (unsigned)refused);
}

/* Zero-length plaintext, aad or both: a bare tag, still authenticated. */
static void test_crypto_empty(void)
{
    static sample s;
    uint8_t tag[16], out[1];
    size_t k;
    make_sample(&s, 5);
    for (k = 0; k < 2; k++) {
        const aead_kind *kind = &kinds[k];
        ZL_CHECK_EQ(kind->seal(tag, sizeof tag, NULL, 0, NULL, 0, s.nonce, s.key), 16);
        ZL_CHECK_EQ(kind->open(NULL, 0, tag, 16, NULL, 0, s.nonce, s.key), 0);
        ZL_CHECK_EQ(kind->open(out, 0, tag, 16, s.aad, 1, s.nonce, s.key), ZL_ERR_AUTH);
        ZL_CHECK_EQ(kind->seal(tag, sizeof tag, NULL, 0, s.aad, 9, s.nonce, s.key), 16);
        ZL_CHECK_EQ(kind->open(out, 0, tag, 16, s.aad, 9, s.nonce, s.key), 0);
        ZL_CHECK_EQ(kind->open(out, 0, tag, 16, NULL, 0, s.nonce, s.key), ZL_ERR_AUTH);
        tag[15] ^= 0x80;
        ZL_CHECK_EQ(kind->open(out, 0, tag, 16, s.aad, 9, s.nonce, s.key), ZL_ERR_AUTH);
        ZL_CHECK_EQ(kind->seal(out, sizeof out, s.msg, 1, NULL, 0, s.nonce, s.key),
                    ZL_ERR_OVERFLOW);
    }
}

/* Short buffers: refused up front, nothing written. */
static void test_crypto_buffer_errors(void)
{
    static sample s;
    static uint8_t sealed[64 + 16], out[64 + 16];
    size_t k;
    make_sample(&s, 9);
    for (k = 0; k < 2; k++) {
        const aead_kind *kind = &kinds[k];
        memset(out, 0xA5, sizeof out);
        ZL_CHECK_EQ(kind->seal(out, 64 + 15, s.msg, 64, s.aad, 4, s.nonce, s.key),
                    ZL_ERR_OVERFLOW);
        ZL_CHECK(out[0] == 0xA5 && out[64 + 15] == 0xA5);
        ZL_CHECK_EQ(kind->seal(sealed, sizeof sealed, s.msg, 64, s.aad, 4, s.nonce, s.key), 80);
        ZL_CHECK_EQ(kind->open(out, 63, sealed, 80, s.aad, 4, s.nonce, s.key), ZL_ERR_OVERFLOW);
        ZL_CHECK(out[0] == 0xA5);
        ZL_CHECK_EQ(kind->open(out, 64, sealed, 80, s.aad, 4, s.nonce, s.key), 64);
    }
}

static void test_crypto_equal_and_wipe(void)
{
    uint8_t a[33], b[33];
    size_t i;
    counting(a, sizeof a, 3);
    memcpy(b, a, sizeof b);
    ZL_CHECK_EQ(zl_crypto_equal(a, b, sizeof a), 1);
    ZL_CHECK_EQ(zl_crypto_equal(NULL, NULL, 0), 1);
    for (i = 0; i < sizeof a; i++) {
        b[i] ^= (uint8_t)(1u << (i % 8));
        ZL_CHECK_EQ(zl_crypto_equal(a, b, sizeof a), 0);
        b[i] = a[i];
    }
    b[32] ^= 0xFF;
    ZL_CHECK_EQ(zl_crypto_equal(a, b, 32), 1);
    zl_crypto_wipe(a, sizeof a);
    for (i = 0; i < sizeof a; i++)
        ZL_CHECK(a[i] == 0);
    zl_crypto_wipe(NULL, 0);
}

/* A port's engine: here one that counts its seals in its context and
 * hands the work to the built-in, as a driver would hand it to hardware. */
static int counting_seal(void *ctx, uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                         const uint8_t *aad, size_t aad_len,
                         const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                         const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    (*(unsigned *)ctx)++;
    return zl_chacha20poly1305_seal(out, out_cap, in, len, aad, aad_len, nonce, key);
}

static void test_crypto_port_hook(void)
{
    static sample s;
    static uint8_t direct[50 + 16], hooked[50 + 16];
    unsigned seals = 0;
    zl_aead aead;
    make_sample(&s, 31);
    zl_aead_default(&aead);
    ZL_CHECK(aead.ctx == NULL);
    ZL_CHECK_EQ(zl_chacha20poly1305_seal(direct, sizeof direct, s.msg, 50, s.aad, 8, s.nonce,
                                         s.key),
                66);
    ZL_CHECK_EQ(aead.seal(aead.ctx, hooked, sizeof hooked, s.msg, 50, s.aad, 8, s.nonce, s.key),
                66);
    ZL_CHECK(memcmp(direct, hooked, sizeof direct) == 0);
    ZL_CHECK_EQ(aead.open(aead.ctx, hooked, 50, hooked, 66, s.aad, 8, s.nonce, s.key), 50);
    ZL_CHECK(memcmp(hooked, s.msg, 50) == 0);
    ZL_CHECK_EQ(aead.open(aead.ctx, hooked, 50, direct, 66, s.aad, 7, s.nonce, s.key),
                ZL_ERR_AUTH);
    /* A port's seal replaces the built-in one and gets its context. */
    aead.ctx = &seals;
    aead.seal = counting_seal;
    ZL_CHECK_EQ(aead.seal(aead.ctx, hooked, sizeof hooked, s.msg, 50, s.aad, 8, s.nonce, s.key),
                66);
    ZL_CHECK(seals == 1 && memcmp(direct, hooked, sizeof direct) == 0);
}

/* The ChaCha20 paths: each one taken where the build and CPU have it, and
 * only the narrower ones below it where they do not. */
/* ---- Several packets' heads at once ---- */

/* Every head of batches of 1 to ZL_AEAD_LANES_MAX + 1 packets (one pass,
 * a full pass and a remainder) under seeded keys and nonces is what
 * zl_chacha20_xor makes of zeros, in every position. */
static void test_crypto_ahead_heads(void)
{
    static zl_aead_ahead batch[2 * ZL_AEAD_LANES_MAX + 1];
    static const uint8_t zeros[ZL_AEAD_HEAD_SIZE];
    uint8_t want[ZL_AEAD_HEAD_SIZE];
    zl_test_rng rng;
    size_t n, j, wrong = 0;
    zl_test_rng_seed(&rng, 36);
    for (n = 0; n <= ZL_COUNTOF(batch); n++) {
        for (j = 0; j < n; j++) {
            fill(&rng, batch[j].key, sizeof batch[j].key);
            fill(&rng, batch[j].nonce, sizeof batch[j].nonce);
            memset(batch[j].head, 0xA5, sizeof batch[j].head);
        }
        zl_aead_ahead_make(batch, n);
        for (j = 0; j < n; j++) {
            zl_chacha20_xor(want, zeros, sizeof want, batch[j].key, batch[j].nonce, 0);
            wrong += memcmp(want, batch[j].head, sizeof want) != 0;
        }
    }
    ZL_CHECK_EQ(wrong, 0);
    zl_aead_ahead_make(NULL, 0);
}

/* The open through a batch: ahead_count packets' heads made in one
 * zl_aead_ahead_make, this packet's in position ahead_lane and the others
 * under other keys and nonces, then opened with its head. */
static size_t ahead_count = 1, ahead_lane = 0;

static int open_through_batch(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                              const uint8_t *aad, size_t aad_len, const uint8_t *nonce,
                              const uint8_t *key)
{
    static zl_aead_ahead batch[ZL_AEAD_LANES_MAX + 1];
    size_t j;
    for (j = 0; j < ahead_count; j++) {
        counting(batch[j].key, sizeof batch[j].key, (uint8_t)(37 * j + 1));
        counting(batch[j].nonce, sizeof batch[j].nonce, (uint8_t)(11 * j + 5));
    }
    memcpy(batch[ahead_lane].key, key, ZL_AEAD_KEY_SIZE);
    memcpy(batch[ahead_lane].nonce, nonce, ZL_AEAD_NONCE_SIZE);
    zl_aead_ahead_make(batch, ahead_count);
    return zl_chacha20poly1305_open_ahead(&batch[ahead_lane], out, out_cap, in, len, aad,
                                          aad_len, nonce, key);
}

/* The seal through a batch: ahead_count packets sealed in one
 * zl_chacha20poly1305_seal_many, this one in position ahead_lane and the
 * others of other lengths under other keys and nonces. */
static int seal_through_batch(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                              const uint8_t *aad, size_t aad_len, const uint8_t *nonce,
                              const uint8_t *key)
{
    static zl_aead_seal_job job[ZL_AEAD_LANES_MAX + 1];
    static uint8_t keys[ZL_AEAD_LANES_MAX + 1][ZL_AEAD_KEY_SIZE];
    static uint8_t nonces[ZL_AEAD_LANES_MAX + 1][ZL_AEAD_NONCE_SIZE];
    static uint8_t other[ZL_AEAD_LANES_MAX + 1][300 + ZL_AEAD_TAG_SIZE];
    size_t j;
    for (j = 0; j < ahead_count; j++) {
        counting(keys[j], sizeof keys[j], (uint8_t)(37 * j + 1));
        counting(nonces[j], sizeof nonces[j], (uint8_t)(11 * j + 5));
        counting(other[j], sizeof other[j], (uint8_t)(3 * j));
        job[j].out = other[j];
        job[j].out_cap = sizeof other[j];
        job[j].in = other[j];
        job[j].len = 37 * j % 300;
        job[j].aad = keys[j];
        job[j].aad_len = j;
        job[j].nonce = nonces[j];
        job[j].key = keys[j];
    }
    job[ahead_lane].out = out;
    job[ahead_lane].out_cap = out_cap;
    job[ahead_lane].in = in;
    job[ahead_lane].len = len;
    job[ahead_lane].aad = aad;
    job[ahead_lane].aad_len = aad_len;
    job[ahead_lane].nonce = nonce;
    job[ahead_lane].key = key;
    zl_chacha20poly1305_seal_many(job, ahead_count);
    return job[ahead_lane].result;
}

/* XChaCha20's open or seal through a batch (fn): the subkey and the short
 * nonce as zl_xchacha20poly1305_open makes them. */
static int extended_through(aead_fn fn, uint8_t *out, size_t out_cap, const uint8_t *in,
                            size_t len, const uint8_t *aad, size_t aad_len, const uint8_t *nonce,
                            const uint8_t *key)
{
    uint8_t subkey[ZL_AEAD_KEY_SIZE], short_nonce[ZL_AEAD_NONCE_SIZE] = {0};
    zl_hchacha20_derive(subkey, key, nonce);
    memcpy(short_nonce + 4, nonce + ZL_HCHACHA20_INPUT_SIZE, 8);
    return fn(out, out_cap, in, len, aad, aad_len, short_nonce, subkey);
}

static int xopen_through_batch(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                               const uint8_t *aad, size_t aad_len, const uint8_t *nonce,
                               const uint8_t *key)
{
    return extended_through(open_through_batch, out, out_cap, in, len, aad, aad_len, nonce, key);
}

static int xseal_through_batch(uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                               const uint8_t *aad, size_t aad_len, const uint8_t *nonce,
                               const uint8_t *key)
{
    return extended_through(seal_through_batch, out, out_cap, in, len, aad, aad_len, nonce, key);
}

/* The RFC 8439, XChaCha and Wycheproof vectors opened and sealed through
 * batches of every size up to a pass and one more, in every position. */
static void test_crypto_ahead_vectors(void)
{
    unsigned batches = 0;
    kinds[0].open = open_through_batch;
    kinds[1].open = xopen_through_batch;
    kinds[0].seal = seal_through_batch;
    kinds[1].seal = xseal_through_batch;
    batch_quiet = 1;
    for (ahead_count = 1; ahead_count <= ZL_AEAD_LANES_MAX + 1; ahead_count++) {
        for (ahead_lane = 0; ahead_lane < ahead_count; ahead_lane++, batches++) {
            test_crypto_aead_published();
            test_crypto_wycheproof_chacha20poly1305();
            test_crypto_wycheproof_xchacha20poly1305();
        }
    }
    zl_test_note("published and Wycheproof vectors opened and sealed through %u batch shapes "
                 "(1 to %u "
                 "packets, every position)",
                 batches, (unsigned)(ZL_AEAD_LANES_MAX + 1));
    batch_quiet = 0;
    ahead_count = 1;
    ahead_lane = 0;
    kinds[0].open = zl_chacha20poly1305_open;
    kinds[1].open = zl_xchacha20poly1305_open;
    kinds[0].seal = zl_chacha20poly1305_seal;
    kinds[1].seal = zl_xchacha20poly1305_seal;
}

/* Batches of 0 to 2 * ZL_AEAD_LANES_MAX + 1 packets of seeded lengths
 * (0 to 700 bytes, whole blocks and not), keys, nonces and aad, some in
 * place and some into another buffer, one in five too big for its buffer:
 * zl_chacha20poly1305_seal_many gives each the bytes and result of
 * zl_chacha20poly1305_seal, and leaves the refused ones' buffers alone. */
static void test_crypto_seal_many(void)
{
    enum { MOST = 2 * ZL_AEAD_LANES_MAX + 1, BYTES = 700 + ZL_AEAD_TAG_SIZE };
    static zl_aead_seal_job job[MOST];
    static uint8_t key[MOST][ZL_AEAD_KEY_SIZE], nonce[MOST][ZL_AEAD_NONCE_SIZE], aad[MOST][20];
    static uint8_t in[MOST][BYTES], out[MOST][BYTES], want[BYTES];
    zl_test_rng rng;
    size_t n, j, round, wrong = 0, refused = 0, lanes;
    zl_test_rng_seed(&rng, 3636);
    for (round = 0; round < 4; round++) {
        for (n = 0; n <= MOST; n++) {
            for (j = 0; j < n; j++) {
                size_t len = zl_test_rng_u32(&rng) % 701u;
                fill(&rng, key[j], sizeof key[j]);
                fill(&rng, nonce[j], sizeof nonce[j]);
                fill(&rng, aad[j], sizeof aad[j]);
                fill(&rng, in[j], BYTES);
                memcpy(out[j], in[j], BYTES);
                job[j].in = in[j];
                job[j].out = (j + round) % 2 ? out[j] : in[j];
                job[j].len = round == 0 ? 64 * (j % 4) : len; /* whole blocks, 0 too */
                job[j].out_cap = (j + n) % 5 == 4 ? job[j].len + ZL_AEAD_TAG_SIZE - 1 : BYTES;
                job[j].aad = aad[j];
                job[j].aad_len = zl_test_rng_u32(&rng) % 21u;
                job[j].nonce = nonce[j];
                job[j].key = key[j];
                job[j].result = 12345;
            }
            zl_chacha20poly1305_seal_many(job, n);
            for (j = 0; j < n; j++) {
                int r = zl_chacha20poly1305_seal(want, job[j].out_cap, out[j] == job[j].out
                                                     ? in[j] : out[j], job[j].len, aad[j],
                                                 job[j].aad_len, nonce[j], key[j]);
                refused += r < 0;
                wrong += r != job[j].result;
                if (r > 0)
                    wrong += memcmp(want, job[j].out, (size_t)r) != 0;
                else
                    wrong += memcmp(in[j], out[j], BYTES) != 0;
            }
        }
    }
    ZL_CHECK_EQ(wrong, 0);
    ZL_CHECK(refused > 0);
    zl_chacha20poly1305_seal_many(NULL, 0);
    /* How many go side by side: none alone or in words, else up to the
     * path's lanes (eight from five packets on, four below). */
    lanes = zl_aead_ahead_lanes();
    for (n = 0; n <= MOST; n++) {
        static zl_aead_lane l[MOST];
        size_t side = lanes < 2 || n < 2 ? 0 : lanes == 8 && n <= 4 ? n : n < lanes ? n : lanes;
        for (j = 0; j < n; j++) {
            l[j].key = key[j];
            l[j].nonce = nonce[j];
            l[j].in = l[j].out = out[j];
            l[j].len = 100;
        }
        wrong += zl_aead_lanes_xor(l, n) != side;
    }
    ZL_CHECK_EQ(wrong, 0);
    zl_test_note("%u packets refused for their buffers; %u lanes on this path", (unsigned)refused,
                 (unsigned)lanes);
}

/* A head made for another key or nonce is not used: the open makes its
 * own and gives what zl_chacha20poly1305_open gives. */
static void test_crypto_ahead_mismatch(void)
{
    static sample s;
    static zl_aead_ahead a;
    uint8_t sealed[200 + 16], out[200];
    int variant;
    make_sample(&s, 361);
    ZL_CHECK_EQ(zl_chacha20poly1305_seal(sealed, sizeof sealed, s.msg, 200, s.aad, 9, s.nonce,
                                         s.key),
                216);
    for (variant = 0; variant < 3; variant++) {
        memcpy(a.key, s.key, sizeof a.key);
        memcpy(a.nonce, s.nonce, sizeof a.nonce);
        a.key[31] ^= (uint8_t)(variant == 1);
        a.nonce[11] ^= (uint8_t)(variant == 2);
        zl_aead_ahead_make(&a, 1);
        memset(out, 0, sizeof out);
        ZL_CHECK_EQ(zl_chacha20poly1305_open_ahead(&a, out, sizeof out, sealed, sizeof sealed,
                                                   s.aad, 9, s.nonce, s.key),
                    200);
        ZL_CHECK(memcmp(out, s.msg, 200) == 0);
    }
    ZL_CHECK_EQ(zl_chacha20poly1305_open_ahead(NULL, out, sizeof out, sealed, sizeof sealed,
                                               s.aad, 9, s.nonce, s.key),
                200);
    sealed[0] ^= 1;
    ZL_CHECK_EQ(zl_chacha20poly1305_open_ahead(&a, out, sizeof out, sealed, sizeof sealed, s.aad,
                                               9, s.nonce, s.key),
                ZL_ERR_AUTH);
    zl_crypto_wipe(&a, sizeof a);
}

static void test_crypto_chacha20_limit(void)
{
    int p, got;
    ZL_CHECK_EQ(zl_chacha20_limit(-1), ZL_CHACHA20_WORDS);
    ZL_CHECK_EQ(zl_chacha20_limit(ZL_CHACHA20_WORDS), ZL_CHACHA20_WORDS);
    ZL_CHECK_EQ(zl_aead_ahead_lanes(), 1u);
    for (p = ZL_CHACHA20_WORDS; p <= ZL_CHACHA20_WIDEST; p++) {
        got = zl_chacha20_limit(p);
        ZL_CHECK(got >= ZL_CHACHA20_WORDS && got <= p);
        /* Lanes on the path taken: 1 in words, 4 or 8 beside each other. */
        ZL_CHECK_EQ(zl_aead_ahead_lanes(), got == ZL_CHACHA20_WORDS ? 1u
                                           : got == ZL_CHACHA20_VEC128 ? 4u
                                                                       : 8u);
        zl_test_note("path %d asked, %d taken", p, got);
    }
#if !defined(ZL_CRYPTO_PORTABLE) && defined(__x86_64__)
    /* Every x86-64 CPU has the 128-bit lanes. */
    ZL_CHECK_EQ(zl_chacha20_limit(ZL_CHACHA20_VEC128), ZL_CHACHA20_VEC128);
#endif
    zl_chacha20_limit(ZL_CHACHA20_WIDEST);
}

/* The tests whose bytes come from the keystream again, on path p where it
 * is narrower than the default (the widest this build and CPU have, which
 * the rest of the suite runs on). */
static void on_path(int p)
{
    int widest = zl_chacha20_limit(ZL_CHACHA20_WIDEST);
    if (p >= widest) {
        zl_test_note("path %d: %s", p,
                     p == widest ? "the default, run above" : "not in this build or CPU");
        return;
    }
    ZL_CHECK_EQ(zl_chacha20_limit(p), p);
    test_crypto_chacha20_rfc();
    test_crypto_chacha20_blocks();
    test_crypto_chacha20_head();
    test_crypto_chacha20_counter_limit();
    test_crypto_hchacha20_draft();
    test_crypto_aead_published();
    test_crypto_wycheproof_chacha20poly1305();
    test_crypto_wycheproof_xchacha20poly1305();
    test_crypto_in_place();
    test_crypto_tamper_refused();
    test_crypto_ahead_heads();
    test_crypto_ahead_vectors();
    test_crypto_seal_many();
    zl_chacha20_limit(ZL_CHACHA20_WIDEST);
}

static void test_crypto_path_words(void)
{
    on_path(ZL_CHACHA20_WORDS);
}

static void test_crypto_path_vec128(void)
{
    on_path(ZL_CHACHA20_VEC128);
}

static void test_crypto_path_vec256(void)
{
    on_path(ZL_CHACHA20_VEC256);
}

void zl_suite_crypto(void)
{
    ZL_RUN(test_crypto_chacha20_rfc);
    ZL_RUN(test_crypto_chacha20_blocks);
    ZL_RUN(test_crypto_chacha20_head);
    ZL_RUN(test_crypto_chacha20_counter_limit);
    ZL_RUN(test_crypto_poly1305_rfc);
    ZL_RUN(test_crypto_poly1305_pieces);
    ZL_RUN(test_crypto_hchacha20_draft);
    ZL_RUN(test_crypto_aead_published);
    ZL_RUN(test_crypto_wycheproof_chacha20poly1305);
    ZL_RUN(test_crypto_wycheproof_xchacha20poly1305);
    ZL_RUN(test_crypto_in_place);
    ZL_RUN(test_crypto_tamper_refused);
    ZL_RUN(test_crypto_empty);
    ZL_RUN(test_crypto_buffer_errors);
    ZL_RUN(test_crypto_equal_and_wipe);
    ZL_RUN(test_crypto_port_hook);
    ZL_RUN(test_crypto_ahead_heads);
    ZL_RUN(test_crypto_ahead_vectors);
    ZL_RUN(test_crypto_ahead_mismatch);
    ZL_RUN(test_crypto_seal_many);
    ZL_RUN(test_crypto_chacha20_limit);
    ZL_RUN(test_crypto_path_words);
    ZL_RUN(test_crypto_path_vec128);
    ZL_RUN(test_crypto_path_vec256);
}
