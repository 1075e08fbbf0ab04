/* test_packet.c - CRC-32 and SipHash-2-4 against published vectors, and the
 * packet header: golden bytes, round trips, and every kind of bad datagram. */
#include <string.h>

#include "zl_bytes.h"
#include "zl_crc32.h"
#include "zl_packet.h"
#include "zl_siphash.h"
#include "zl_test.h"

#define PROTOCOL_ID 0x5A4C0001u

/* ---- oracles, written independently of the code under test ---- */

/* CRC-32 one bit at a time straight from the definition: reflected
 * polynomial 0xEDB88320, register preset to all ones, result inverted. */
static uint32_t crc_bitwise(const uint8_t *p, size_t n, uint32_t reg)
{
    size_t i;
    int b;
    for (i = 0; i < n; i++) {
        reg ^= p[i];
        for (b = 0; b < 8; b++)
            reg = (reg & 1u) ? (reg >> 1) ^ 0xEDB88320u : reg >> 1;
    }
    return reg;
}

/* The packet CRC as zl_packet.h describes it: protocol id as 4 little-endian
 * bytes, then the packet from byte 4. */
static uint32_t packet_crc_oracle(const uint8_t *packet, size_t len, uint32_t protocol_id)
{
    uint8_t id[4];
    id[0] = (uint8_t)protocol_id;
    id[1] = (uint8_t)(protocol_id >> 8);
    id[2] = (uint8_t)(protocol_id >> 16);
    id[3] = (uint8_t)(protocol_id >> 24);
    return ~crc_bitwise(packet + 4, len - 4, crc_bitwise(id, 4, 0xFFFFFFFFu));
}

/* Writes a valid CRC into a hand-made packet, bypassing zl_packet_seal. */
static void reseal_by_hand(uint8_t *packet, size_t len, uint32_t protocol_id)
{
    uint32_t crc = packet_crc_oracle(packet, len, protocol_id);
    packet[0] = (uint8_t)crc;
    packet[1] = (uint8_t)(crc >> 8);
    packet[2] = (uint8_t)(crc >> 16);
    packet[3] = (uint8_t)(crc >> 24);
}

static void random_header(zl_test_rng *rng, zl_packet_header *h)
{
    h->type = (uint8_t)zl_test_rng_range(rng, 0, ZL_PACKET_TYPE_COUNT - 1);
    h->sequence = (uint16_t)zl_test_rng_u32(rng);
    h->ack = (uint16_t)zl_test_rng_u32(rng);
    /* One in four with every ack bit set: the short header. */
    h->ack_bits = zl_test_rng_range(rng, 0, 3) ? zl_test_rng_u32(rng) : 0xFFFFFFFFu;
    h->short_fields = 0;
}

/* The header length zl_packet.h gives: 13 bytes, 4 fewer when all 32 ack
 * bits are set, 1 fewer for each short field. */
static int header_bytes(const zl_packet_header *h)
{
    return (h->ack_bits == 0xFFFFFFFFu ? 9 : 13) -
           ((h->short_fields & ZL_PACKET_SHORT_SEQUENCE) != 0) -
           ((h->short_fields & ZL_PACKET_SHORT_ACK) != 0);
}

/* A sealed packet with a random header and payload_bytes of random payload. */
static int make_packet(zl_test_rng *rng, uint8_t *buf, size_t payload_bytes, zl_packet_header *h)
{
    size_t i;
    random_header(rng, h);
    for (i = 0; i < payload_bytes; i++)
        buf[ZL_PACKET_HEADER_SIZE + i] = (uint8_t)zl_test_rng_u32(rng);
    return zl_packet_seal(buf, payload_bytes, h, PROTOCOL_ID);
}

/* ---- CRC-32 ---- */

static void test_crc32_check_value(void)
{
    static const char check[] = "123456789";
    ZL_CHECK_EQ(zl_crc32_update(0, check, 9), 0xCBF43926u);
    ZL_CHECK_EQ(zl_crc32_update(0, NULL, 0), 0);
    /* Fed in pieces, the result is the same. */
    ZL_CHECK_EQ(zl_crc32_update(zl_crc32_update(zl_crc32_update(0, check, 2), check + 2, 0),
                                check + 2, 7),
                0xCBF43926u);
}

/* Random lengths, contents and split points against the bitwise oracle. */
static void test_crc32_matches_bitwise(void)
{
    static uint8_t buf[1500];
    zl_test_rng rng;
    int trial;
    zl_test_rng_seed(&rng, 11);
    for (trial = 0; trial < ZL_TEST_ITERATIONS(300); trial++) {
        size_t len = (size_t)zl_test_rng_range(&rng, 0, (int32_t)sizeof buf);
        size_t cut = (size_t)zl_test_rng_range(&rng, 0, (int32_t)len);
        size_t i;
        uint32_t want, got;
        for (i = 0; i < len; i++)
            buf[i] = (uint8_t)zl_test_rng_u32(&rng);
        want = ~crc_bitwise(buf, len, 0xFFFFFFFFu);
        got = zl_crc32_update(zl_crc32_update(0, buf, cut), buf + cut, len - cut);
        if (!ZL_CHECK_EQ(got, want))
            break;
    }
}

/* ---- SipHash-2-4 ---- */

/* The 64 SipHash-2-4 test vectors of the reference implementation
 * (github.com/veorq/SipHash, vectors.h, vectors_sip64; also Appendix A of
 * the SipHash paper, Aumasson and Bernstein, 2012): key 00 01 .. 0f, message
 * 00 01 .. (n-1) for n = 0..63. The reference lists each output as 8 bytes;
 * here they are read as little-endian 64-bit numbers. */
static const uint64_t siphash_vectors[64] = {
    0x726FDB47DD0E0E31u, 0x74F839C593DC67FDu,
    0x0D6C8009D9A94F5Au, 0x85676696D7FB7E2Du,
    0xCF2794E0277187B7u, 0x18765564CD99A68Du,
    0xCBC9466E58FEE3CEu, 0xAB0200F58B01D137u,
    0x93F5F5799A932462u, 0x9E0082DF0BA9E4B0u,
    0x7A5DBBC594DDB9F3u, 0xF4B32F46226BADA7u,
    0x751E8FBC860EE5FBu, 0x14EA5627C0843D90u,
    0xF723CA908E7AF2EEu, 0xA129CA6149BE45E5u,
    0x3F2ACC7F57C29BDBu, 0x699AE9F52CBE4794u,
    0x4BC1B3F0968DD39Cu, 0xBB6DC91DA77961BDu,
    0xBED65CF21AA2EE98u, 0xD0F2CBB02E3B67C7u,
    0x93536795E3A33E88u, 0xA80C038CCD5CCEC8u,
    0xB8AD50C6F649AF94u, 0xBCE192DE8A85B8EAu,
    0x17D835B85BBB15F3u, 0x2F2E6163076BCFADu,
    0xDE4DAAACA71DC9A5u, 0xA6A2506687956571u,
    0xAD87A3535C49EF28u, 0x32D892FAD841C342u,
    0x7127512F72F27CCEu, 0xA7F32346F95978E3u,
    0x12E0B01ABB051238u, 0x15E034D40FA197AEu,
    0x314DFFBE0815A3B4u, 0x027990F029623981u,
    0xCADCD4E59EF40C4Du, 0x9ABFD8766A33735Cu,
    0x0E3EA96B5304A7D0u, 0xAD0C42D6FC585992u,
    0x187306C89BC215A9u, 0xD4A60ABCF3792B95u,
    0xF935451DE4F21DF2u, 0xA9538F0419755787u,
    0xDB9ACDDFF56CA510u, 0xD06C98CD5C0975EBu,
    0xE612A3CB9ECBA951u, 0xC766E62CFCADAF96u,
    0xEE64435A9752FE72u, 0xA192D576B245165Au,
    0x0A8787BF8ECB74B2u, 0x81B3E73D20B49B6Fu,
    0x7FA8220BA3B2ECEAu, 0x245731C13CA42499u,
    0xB78DBFAF3A8D83BDu, 0xEA1AD565322A1A0Bu,
    0x60E61C23A3795013u, 0x6606D7E446282B93u,
    0x6CA4ECB15C5F91E1u, 0x9F626DA15C9625F3u,
    0xE51B38608EF25F57u, 0x958A324CEB064572u,
};

static void test_siphash_reference_vectors(void)
{
    uint8_t key[ZL_SIPHASH_KEY_SIZE], msg[64];
    int i;
    for (i = 0; i < 16; i++)
        key[i] = (uint8_t)i;
    for (i = 0; i < 64; i++)
        msg[i] = (uint8_t)i;
    for (i = 0; i < 64; i++)
        ZL_CHECK(zl_siphash_digest(key, msg, (size_t)i) == siphash_vectors[i]);
}

/* Any alignment of key and message gives the same hash. */
static void test_siphash_unaligned(void)
{
    uint8_t key_store[ZL_SIPHASH_KEY_SIZE + 3], msg_store[64 + 7];
    int shift, i;
    for (shift = 1; shift < 4; shift++) {
        uint8_t *key = key_store + shift, *msg = msg_store + shift + 2;
        for (i = 0; i < 16; i++)
            key[i] = (uint8_t)i;
        for (i = 0; i < 64; i++)
            msg[i] = (uint8_t)i;
        for (i = 0; i < 64; i++)
            ZL_CHECK(zl_siphash_digest(key, msg, (size_t)i) == siphash_vectors[i]);
    }
}

/* SipHash-2-4 a second way, from the paper's description, for messages
 * longer than the vectors: the message is padded into whole words first
 * (zeros, then the length mod 256 in the last byte), and the state is an
 * array. Checked against the vectors itself below. */
#define ORACLE_MAX 320
static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static void sip_rounds(uint64_t v[4], int n)
{
    for (; n > 0; n--) {
        v[0] += v[1];
        v[1] = rotl64(v[1], 13) ^ v[0];
        v[0] = rotl64(v[0], 32);
        v[2] += v[3];
        v[3] = rotl64(v[3], 16) ^ v[2];
        v[0] += v[3];
        v[3] = rotl64(v[3], 21) ^ v[0];
        v[2] += v[1];
        v[1] = rotl64(v[1], 17) ^ v[2];
        v[2] = rotl64(v[2], 32);
    }
}

static uint64_t word_le(const uint8_t *p)
{
    uint64_t w = 0;
    int i;
    for (i = 0; i < 8; i++)
        w |= (uint64_t)p[i] << (8 * i);
    return w;
}

static uint64_t siphash_oracle(const uint8_t key[16], const uint8_t *msg, size_t len)
{
    uint8_t padded[ORACLE_MAX + 8];
    size_t words = len / 8 + 1, i;
    uint64_t v[4], k0 = word_le(key), k1 = word_le(key + 8);
    memset(padded, 0, sizeof padded);
    memcpy(padded, msg, len);
    padded[words * 8 - 1] = (uint8_t)len;
    v[0] = k0 ^ 0x736F6D6570736575u;
    v[1] = k1 ^ 0x646F72616E646F6Du;
    v[2] = k0 ^ 0x6C7967656E657261u;
    v[3] = k1 ^ 0x7465646279746573u;
    for (i = 0; i < words; i++) {
        uint64_t m = word_le(padded + 8 * i);
        v[3] ^= m;
        sip_rounds(v, 2);
        v[0] ^= m;
    }
    v[2] ^= 0xFF;
    sip_rounds(v, 4);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* Long messages and random keys against the second implementation, which
 * must itself reproduce the published vectors. */
static void test_siphash_long_messages(void)
{
    uint8_t key[ZL_SIPHASH_KEY_SIZE], msg[ORACLE_MAX];
    zl_test_rng rng;
    int i, trial;
    for (i = 0; i < 16; i++)
        key[i] = (uint8_t)i;
    for (i = 0; i < 64; i++)
        msg[i] = (uint8_t)i;
    for (i = 0; i < 64; i++)
        ZL_CHECK(siphash_oracle(key, msg, (size_t)i) == siphash_vectors[i]);
    zl_test_rng_seed(&rng, 13);
    for (trial = 0; trial < ZL_TEST_ITERATIONS(400); trial++) {
        size_t len = (size_t)zl_test_rng_range(&rng, 0, ORACLE_MAX);
        for (i = 0; i < 16; i++)
            key[i] = (uint8_t)zl_test_rng_u32(&rng);
        for (i = 0; i < (int)len; i++)
            msg[i] = (uint8_t)zl_test_rng_u32(&rng);
        if (!ZL_CHECK(zl_siphash_digest(key, msg, len) == siphash_oracle(key, msg, len)))
            break;
    }
}

/* ---- packet header ---- */

/* Fixed header, fixed bytes: the layout documented in zl_packet.h. */
static void test_packet_golden_bytes(void)
{
    /* Everything after the CRC: type, sequence, ack, ack_bits, payload. */
    static const uint8_t want[] = {0x0B, 0x34, 0x12, 0xCD, 0xAB, 0x78,
                                   0x56, 0x34, 0x12, 0xEE, 0xFF};
    uint8_t buf[ZL_PACKET_HEADER_SIZE + 2];
    zl_packet_header h;
    uint32_t crc;
    buf[13] = 0xEE;
    buf[14] = 0xFF;
    h.type = 11;
    h.short_fields = 0;
    h.sequence = 0x1234;
    h.ack = 0xABCD;
    h.ack_bits = 0x12345678u;
    ZL_CHECK_EQ(zl_packet_seal(buf, 2, &h, PROTOCOL_ID), ZL_PACKET_HEADER_SIZE + 2);
    ZL_CHECK(memcmp(buf + 4, want, sizeof want) == 0);
    crc = packet_crc_oracle(buf, sizeof buf, PROTOCOL_ID);
    ZL_CHECK_EQ(buf[0], crc & 0xFFu);
    ZL_CHECK_EQ(buf[1], (crc >> 8) & 0xFFu);
    ZL_CHECK_EQ(buf[2], (crc >> 16) & 0xFFu);
    ZL_CHECK_EQ(buf[3], crc >> 24);
    /* Every ack bit set: the flag 0x20 in the type byte, no ack_bits, and
     * the payload right after the ack. */
    {
        static const uint8_t full[] = {0x2B, 0x34, 0x12, 0xCD, 0xAB, 0xEE, 0xFF};
        buf[13] = 0xEE;
        buf[14] = 0xFF;
        h.ack_bits = 0xFFFFFFFFu;
        ZL_CHECK_EQ(zl_packet_seal(buf, 2, &h, PROTOCOL_ID), 9 + 2);
        ZL_CHECK(memcmp(buf + 4, full, sizeof full) == 0);
        ZL_CHECK_EQ(zl_get_le32(buf), packet_crc_oracle(buf, 9 + 2, PROTOCOL_ID));
    }
    /* Both fields short: their low bytes are sent (flags 0x40 and 0x80),
     * and the CRC covers them long, as the 9-byte header above would be
     * with this type byte. */
    {
        static const uint8_t sent[] = {0xEB, 0x34, 0xCD, 0xEE, 0xFF};
        uint8_t long_form[4 + 5 + 2] = {0, 0, 0, 0, 0xEB, 0x34, 0x12, 0xCD, 0xAB, 0xEE, 0xFF};
        zl_packet_near near;
        zl_packet_header got;
        near.sequence = 0x1234 - 100;
        near.ack = 0xABCD + 128;
        buf[13] = 0xEE;
        buf[14] = 0xFF;
        h.short_fields = ZL_PACKET_SHORT_SEQUENCE | ZL_PACKET_SHORT_ACK;
        ZL_CHECK_EQ(zl_packet_seal(buf, 2, &h, PROTOCOL_ID), 7 + 2);
        ZL_CHECK(memcmp(buf + 4, sent, sizeof sent) == 0);
        ZL_CHECK_EQ(zl_get_le32(buf), packet_crc_oracle(long_form, sizeof long_form, PROTOCOL_ID));
        ZL_CHECK_EQ(zl_packet_crc(buf, 9, PROTOCOL_ID, &near), zl_get_le32(buf));
        ZL_CHECK_EQ(zl_packet_open(buf, 9, PROTOCOL_ID, &near, &got, NULL), 7);
        ZL_CHECK_EQ(got.sequence, 0x1234);
        ZL_CHECK_EQ(got.ack, 0xABCD);
        ZL_CHECK_EQ(got.short_fields, ZL_PACKET_SHORT_SEQUENCE | ZL_PACKET_SHORT_ACK);
        /* A reference one further off widens to another value: the CRC
         * fails, the misread is never taken. */
        near.ack = 0xABCD + 129;
        ZL_CHECK_EQ(zl_packet_open(buf, 9, PROTOCOL_ID, &near, &got, NULL), ZL_ERR_MALFORMED);
        near.ack = 0xABCD;
        near.sequence = 0x1234 + 129;
        ZL_CHECK_EQ(zl_packet_open(buf, 9, PROTOCOL_ID, &near, &got, NULL), ZL_ERR_MALFORMED);
        /* No reference (a connectionless packet): refused as malformed. */
        ZL_CHECK_EQ(zl_packet_open(buf, 9, PROTOCOL_ID, NULL, &got, NULL), ZL_ERR_MALFORMED);
    }
}

static void test_packet_round_trip(void)
{
    static uint8_t buf[ZL_MAX_PACKET], copy[ZL_MAX_PACKET];
    zl_test_rng rng;
    int trial;
    zl_test_rng_seed(&rng, 21);
    for (trial = 0; trial < ZL_TEST_ITERATIONS(500); trial++) {
        size_t payload = (size_t)zl_test_rng_range(&rng, 0, ZL_PACKET_MAX_PAYLOAD);
        zl_packet_header h, got;
        zl_packet_near near;
        zl_packet_drop why = ZL_PACKET_DROP_COUNT;
        int len, ok;
        random_header(&rng, &h);
        /* Short fields within -128..+127 of the reference, across the wrap
         * at 2^16 too. */
        h.short_fields = (uint8_t)(zl_test_rng_range(&rng, 0, 3) << 6);
        near.sequence = (uint16_t)(h.sequence - zl_test_rng_range(&rng, -128, 127));
        near.ack = (uint16_t)(h.ack - zl_test_rng_range(&rng, -128, 127));
        memset(buf + ZL_PACKET_HEADER_SIZE, (int)trial, payload);
        len = zl_packet_seal(buf, payload, &h, PROTOCOL_ID);
        ok = ZL_CHECK_EQ(len, header_bytes(&h) + (int)payload);
        memcpy(copy, buf, (size_t)len);
        ok &= ZL_CHECK_EQ(zl_packet_open(buf, (size_t)len, PROTOCOL_ID, &near, &got, &why),
                          header_bytes(&h));
        ok &= ZL_CHECK_EQ(got.short_fields, h.short_fields);
        ok &= ZL_CHECK_EQ(why, ZL_PACKET_DROP_NONE);
        ok &= ZL_CHECK_EQ(got.type, h.type);
        ok &= ZL_CHECK_EQ(got.sequence, h.sequence);
        ok &= ZL_CHECK_EQ(got.ack, h.ack);
        ok &= ZL_CHECK_EQ(got.ack_bits, h.ack_bits);
        ok &= ZL_CHECK(memcmp(buf, copy, (size_t)len) == 0); /* open only reads */
        if (!ok)
            break;
    }
}

/* The largest payload fits; one more byte is refused and nothing written. */
static void test_packet_seal_limits(void)
{
    static uint8_t buf[ZL_MAX_PACKET + 1];
    zl_packet_header h, got;
    memset(&h, 0, sizeof h);
    h.type = ZL_PACKET_TYPE_COUNT - 1;
    memset(buf, 0x5A, sizeof buf);
    ZL_CHECK_EQ(zl_packet_seal(buf, ZL_PACKET_MAX_PAYLOAD + 1, &h, PROTOCOL_ID), ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(buf[0], 0x5A);
    ZL_CHECK_EQ(buf[4], 0x5A);
    /* The largest payload leaves room for a sealed packet's tag. */
    ZL_CHECK_EQ(zl_packet_seal(buf, ZL_PACKET_MAX_PAYLOAD, &h, PROTOCOL_ID),
                ZL_MAX_PACKET - ZL_PACKET_TAG_SIZE);
    ZL_CHECK_EQ(zl_packet_open(buf, ZL_MAX_PACKET - ZL_PACKET_TAG_SIZE, PROTOCOL_ID, NULL, &got, NULL),
                ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(got.type, ZL_PACKET_TYPE_COUNT - 1);
    ZL_CHECK_EQ(zl_packet_seal(buf, 0, &h, PROTOCOL_ID), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(zl_packet_open(buf, ZL_PACKET_HEADER_SIZE, PROTOCOL_ID, NULL, &got, NULL),
                ZL_PACKET_HEADER_SIZE);
}

/* A CRC-32 catches every single-bit error: flip each bit of a packet in turn. */
static void test_packet_any_flipped_bit_dropped(void)
{
    uint8_t buf[ZL_PACKET_HEADER_SIZE + 40];
    zl_test_rng rng;
    zl_packet_header h;
    int len, bit, ok = 1;
    zl_test_rng_seed(&rng, 31);
    len = make_packet(&rng, buf, 40, &h);
    for (bit = 0; bit < len * 8; bit++) {
        zl_packet_drop why = ZL_PACKET_DROP_NONE;
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        ok &= zl_packet_open(buf, (size_t)len, PROTOCOL_ID, NULL, &h, &why) == ZL_ERR_MALFORMED;
        /* The type byte's flags also change the header's form: short, or
         * a short field without a reference. */
        ok &= why == ZL_PACKET_DROP_CHECKSUM || (bit / 8 == 4 && why != ZL_PACKET_DROP_NONE);
        ok &= h.sequence == 0 && h.ack_bits == 0; /* zeroed on failure */
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    ZL_CHECK(ok);
    ZL_CHECK(zl_packet_open(buf, (size_t)len, PROTOCOL_ID, NULL, &h, NULL) > 0);
}

/* Random damage: bursts of up to 32 bits (always caught by a CRC-32) and
 * rewritten bytes anywhere (missed with odds of 2^-32 each). */
static void test_packet_corrupted_dropped(void)
{
    static uint8_t buf[ZL_MAX_PACKET];
    zl_test_rng rng;
    int trial, dropped = 0, trials = ZL_TEST_ITERATIONS(2000);
    zl_test_rng_seed(&rng, 41);
    for (trial = 0; trial < trials; trial++) {
        zl_packet_header h;
        zl_packet_drop why;
        int len = make_packet(&rng, buf, (size_t)zl_test_rng_range(&rng, 0, 200), &h);
        if (trial % 2 == 0) {
            uint32_t burst = zl_test_rng_u32(&rng) | 1u; /* first bit always flips */
            int start = zl_test_rng_range(&rng, 0, len * 8 - 1), i;
            for (i = 0; i < 32 && start + i < len * 8; i++)
                if ((burst >> i) & 1u)
                    buf[(start + i) / 8] ^= (uint8_t)(1u << ((start + i) % 8));
        } else {
            int n = zl_test_rng_range(&rng, 1, 8), i;
            for (i = 0; i < n; i++) {
                int at = zl_test_rng_range(&rng, 0, len - 1);
                buf[at] = (uint8_t)(buf[at] ^ zl_test_rng_range(&rng, 1, 255));
            }
        }
        if (zl_packet_open(buf, (size_t)len, PROTOCOL_ID, NULL, &h, &why) == ZL_ERR_MALFORMED &&
            why != ZL_PACKET_DROP_NONE)
            dropped++;
    }
    ZL_CHECK_EQ(dropped, trials);
}

/* Another protocol, or another version of this one, fails the check. */
static void test_packet_wrong_protocol_dropped(void)
{
    uint8_t buf[ZL_PACKET_HEADER_SIZE + 16];
    zl_test_rng rng;
    zl_packet_header h;
    zl_packet_drop why;
    int len, i;
    static const uint32_t others[] = {PROTOCOL_ID ^ 1u, PROTOCOL_ID + 0x100u, 0, 0xFFFFFFFFu,
                                      0x01004C5Au /* byte-swapped */};
    zl_test_rng_seed(&rng, 51);
    len = make_packet(&rng, buf, 16, &h);
    for (i = 0; i < (int)ZL_COUNTOF(others); i++) {
        ZL_CHECK_EQ(zl_packet_open(buf, (size_t)len, others[i], NULL, &h, &why), ZL_ERR_MALFORMED);
        ZL_CHECK_EQ(why, ZL_PACKET_DROP_CHECKSUM);
    }
    for (i = 0; i < ZL_TEST_ITERATIONS(200); i++) {
        uint32_t id = zl_test_rng_u32(&rng);
        if (id != PROTOCOL_ID && !ZL_CHECK_EQ(zl_packet_open(buf, (size_t)len, id, NULL, &h, NULL),
                                              ZL_ERR_MALFORMED))
            break;
    }
}

/* Every prefix of a valid packet, in a buffer exactly that long so a read
 * past the end is caught (AddressSanitizer on hosts). */
static void test_packet_truncated_dropped(void)
{
    uint8_t buf[ZL_PACKET_HEADER_SIZE + 64];
    zl_test_rng rng;
    zl_packet_header h;
    int len, n, header, ok = 1;
    zl_test_rng_seed(&rng, 61);
    len = make_packet(&rng, buf, 64, &h);
    header = header_bytes(&h);
    for (n = 0; n < len; n++) {
        uint8_t *copy = (uint8_t *)zl_test_exact_buffer((size_t)n);
        zl_packet_drop why;
        memcpy(copy, buf, (size_t)n);
        ok &= zl_packet_open(n ? copy : NULL, (size_t)n, PROTOCOL_ID, NULL, &h, &why) ==
              ZL_ERR_MALFORMED;
        ok &= why == (n < header ? ZL_PACKET_DROP_SHORT : ZL_PACKET_DROP_CHECKSUM);
        zl_test_release_buffer(copy);
    }
    ZL_CHECK(ok);
}

/* More than ZL_MAX_PACKET bytes is refused even with a valid CRC. */
static void test_packet_oversized_dropped(void)
{
    size_t n;
    for (n = ZL_MAX_PACKET - 1; n <= ZL_MAX_PACKET + 2; n++) {
        uint8_t *buf = (uint8_t *)zl_test_exact_buffer(n);
        zl_packet_header h;
        zl_packet_drop why;
        memset(buf, 0, n);
        reseal_by_hand(buf, n, PROTOCOL_ID);
        if (n <= ZL_MAX_PACKET) {
            ZL_CHECK_EQ(zl_packet_open(buf, n, PROTOCOL_ID, NULL, &h, &why), ZL_PACKET_HEADER_SIZE);
        } else {
            ZL_CHECK_EQ(zl_packet_open(buf, n, PROTOCOL_ID, NULL, &h, &why), ZL_ERR_TRUNCATED);
            ZL_CHECK_EQ(why, ZL_PACKET_DROP_OVERSIZED);
        }
        zl_test_release_buffer(buf);
    }
}

/* Every type byte with a valid CRC: the ack bits flag (0x20) makes a
 * 9-byte header whose ack_bits are all ones; a short field flag (0x40,
 * 0x80) is refused without a reference (a connectionless packet) and
 * takes a byte off the header with one. */
static void test_packet_type_byte_forms(void)
{
    uint8_t buf[ZL_PACKET_HEADER_SIZE];
    zl_packet_header h;
    zl_packet_near near = {0, 0};
    zl_packet_drop why;
    int t, accepted = 0, full = 0, refused = 0, widened = 0;
    memset(buf, 0, sizeof buf);
    for (t = 0; t < 256; t++) {
        int r, size = ((t & 0x20) ? 9 : 13) - ((t & 0x40) != 0) - ((t & 0x80) != 0);
        buf[4] = (uint8_t)t;
        memset(&h, 0, sizeof h);
        h.type = (uint8_t)(t & (ZL_PACKET_TYPE_COUNT - 1));
        h.ack_bits = (t & 0x20) ? 0xFFFFFFFFu : 0;
        h.short_fields = (uint8_t)(t & 0xC0);
        zl_put_le32(buf, zl_packet_crc(buf, (size_t)size, PROTOCOL_ID, &near));
        r = zl_packet_open(buf, (size_t)size, PROTOCOL_ID, NULL, &h, &why);
        if (t < 2 * ZL_PACKET_TYPE_COUNT) {
            accepted += r == size && h.type == (t & 31) && (t < 32 || h.ack_bits == 0xFFFFFFFFu);
            full += t >= 32 && r == 9;
        } else {
            refused += r == ZL_ERR_MALFORMED && why == ZL_PACKET_DROP_FORMAT;
            r = zl_packet_open(buf, (size_t)size, PROTOCOL_ID, &near, &h, &why);
            widened += r == size && h.type == (t & 31) && h.sequence == 0 && h.ack == 0 &&
                       h.short_fields == (t & 0xC0);
        }
    }
    ZL_CHECK_EQ(accepted, 2 * ZL_PACKET_TYPE_COUNT);
    ZL_CHECK_EQ(full, ZL_PACKET_TYPE_COUNT);
    ZL_CHECK_EQ(refused, 6 * ZL_PACKET_TYPE_COUNT);
    ZL_CHECK_EQ(widened, 6 * ZL_PACKET_TYPE_COUNT);
}

/* One encoding for every header: all 32 ack bits sent in full are refused
 * (the flag says it in 4 bytes less), and a header cut short by its own
 * type byte is short, both with a valid CRC. */
static void test_packet_two_encodings_dropped(void)
{
    uint8_t buf[ZL_PACKET_HEADER_SIZE];
    zl_packet_header h;
    zl_packet_drop why;
    memset(buf, 0, sizeof buf);
    buf[4] = 8;
    memset(buf + 9, 0xFF, 4);
    reseal_by_hand(buf, sizeof buf, PROTOCOL_ID);
    ZL_CHECK_EQ(zl_packet_open(buf, sizeof buf, PROTOCOL_ID, NULL, &h, &why), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(why, ZL_PACKET_DROP_FORMAT);
    buf[12] = 0x7F;
    reseal_by_hand(buf, sizeof buf, PROTOCOL_ID);
    ZL_CHECK_EQ(zl_packet_open(buf, sizeof buf, PROTOCOL_ID, NULL, &h, &why), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(h.ack_bits, 0x7FFFFFFFu);
    reseal_by_hand(buf, 12, PROTOCOL_ID);
    ZL_CHECK_EQ(zl_packet_open(buf, 12, PROTOCOL_ID, NULL, &h, &why), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(why, ZL_PACKET_DROP_SHORT);
    buf[4] = 8 | ZL_PACKET_ACKS_FULL;
    reseal_by_hand(buf, 8, PROTOCOL_ID);
    ZL_CHECK_EQ(zl_packet_open(buf, 8, PROTOCOL_ID, NULL, &h, &why), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(why, ZL_PACKET_DROP_SHORT);
    reseal_by_hand(buf, 9, PROTOCOL_ID);
    ZL_CHECK_EQ(zl_packet_open(buf, 9, PROTOCOL_ID, NULL, &h, &why), 9);
}

void zl_suite_packet(void)
{
    ZL_RUN(test_crc32_check_value);
    ZL_RUN(test_crc32_matches_bitwise);
    ZL_RUN(test_siphash_reference_vectors);
    ZL_RUN(test_siphash_unaligned);
    ZL_RUN(test_siphash_long_messages);
    ZL_RUN(test_packet_golden_bytes);
    ZL_RUN(test_packet_round_trip);
    ZL_RUN(test_packet_seal_limits);
    ZL_RUN(test_packet_any_flipped_bit_dropped);
    ZL_RUN(test_packet_corrupted_dropped);
    ZL_RUN(test_packet_wrong_protocol_dropped);
    ZL_RUN(test_packet_truncated_dropped);
    ZL_RUN(test_packet_oversized_dropped);
    ZL_RUN(test_packet_type_byte_forms);
    ZL_RUN(test_packet_two_encodings_dropped);
}
