/* test_slip.c - SLIP framing: exact encoding, round trips through a byte-wise
 * decoder, resumable encoding, and drops that are counted, never crashes. */
#include <string.h>

#include "zl_slip.h"
#include "zl_test.h"

#define MAX_FRAME 300u

/* Random bytes in which END and ESC are common, so escapes are exercised. */
static uint8_t awkward_byte(zl_test_rng *rng)
{
    static const uint8_t special[] = {ZL_SLIP_END, ZL_SLIP_ESC, ZL_SLIP_ESC_END, ZL_SLIP_ESC_ESC};
    uint32_t r = zl_test_rng_u32(rng);
    return r % 3u == 0 ? special[(r >> 8) % 4u] : (uint8_t)(r >> 16);
}

/* Pushes n bytes; returns the length of the last frame completed (or 0)
 * and how many frames completed in *frames. */
static int push_all(zl_slip_decoder *d, const uint8_t *in, size_t n, int *frames)
{
    int last = 0;
    size_t i;
    *frames = 0;
    for (i = 0; i < n; i++) {
        int r = zl_slip_decoder_push(d, in[i]);
        if (r > 0) {
            last = r;
            (*frames)++;
        }
    }
    return last;
}

static void test_slip_known_encoding(void)
{
    static const uint8_t data[] = {0x01, 0xC0, 0x02, 0xDB, 0x03};
    static const uint8_t want[] = {0xC0, 0x01, 0xDB, 0xDC, 0x02, 0xDB, 0xDD, 0x03, 0xC0};
    uint8_t out[32];
    zl_slip_encoder idle;
    int n = zl_slip_encode(data, sizeof data, out, sizeof out);
    ZL_CHECK_EQ(n, (int)sizeof want);
    ZL_CHECK(memcmp(out, want, sizeof want) == 0);
    /* An empty datagram is two ENDs. */
    ZL_CHECK_EQ(zl_slip_encode(data, 0, out, sizeof out), 2);
    ZL_CHECK(out[0] == ZL_SLIP_END && out[1] == ZL_SLIP_END);
    /* A zeroed encoder is idle: done, and writes nothing. */
    memset(&idle, 0, sizeof idle);
    ZL_CHECK(zl_slip_encoder_done(&idle));
    ZL_CHECK_EQ(zl_slip_encoder_write(&idle, out, sizeof out), 0);
}

static void test_slip_encode_overflow(void)
{
    static const uint8_t data[] = {0xC0, 0xDB, 0x00};
    uint8_t out[8];
    /* END, two escapes, a plain byte, END: 7 bytes. */
    ZL_CHECK_EQ(zl_slip_encode(data, sizeof data, out, 7), 7);
    ZL_CHECK_EQ(zl_slip_encode(data, sizeof data, out, 6), ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(zl_slip_encode(data, sizeof data, out, 0), ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ((int)ZL_SLIP_ENCODED_MAX(sizeof data), 8);
}

/* Random datagrams, special bytes included, come back byte for byte, each
 * exactly at its closing END, and never exceed the size bound. */
static void test_slip_round_trip(void)
{
    static uint8_t data[MAX_FRAME], wire[ZL_SLIP_ENCODED_MAX(MAX_FRAME)], buf[MAX_FRAME];
    zl_slip_decoder d;
    zl_test_rng rng;
    int round, ok = 1, exact_end = 1, bounded = 1, rounds = ZL_TEST_ITERATIONS(2000) * 10;
    uint32_t delivered = 0;
    zl_test_rng_seed(&rng, 7);
    zl_slip_decoder_init(&d, buf, sizeof buf);
    for (round = 0; round < rounds; round++) {
        size_t len = 1u + zl_test_rng_u32(&rng) % MAX_FRAME, i;
        int n;
        for (i = 0; i < len; i++)
            data[i] = awkward_byte(&rng);
        n = zl_slip_encode(data, len, wire, sizeof wire);
        bounded &= n > 0 && (size_t)n <= ZL_SLIP_ENCODED_MAX(len);
        /* Only the two framing bytes are END. */
        for (i = 1; n > 0 && i + 1 < (size_t)n; i++)
            bounded &= wire[i] != ZL_SLIP_END;
        for (i = 0; n > 0 && i < (size_t)n; i++) {
            int r = zl_slip_decoder_push(&d, wire[i]);
            if (i + 1 < (size_t)n) {
                exact_end &= r == 0;
                continue;
            }
            exact_end &= r == (int)len;
            ok &= r == (int)len && memcmp(d.buf, data, len) == 0;
            delivered += r > 0;
        }
    }
    ZL_CHECK(bounded);
    ZL_CHECK(exact_end);
    ZL_CHECK(ok);
    ZL_CHECK_EQ(d.stats.frames, (uint32_t)rounds);
    ZL_CHECK_EQ(delivered, (uint32_t)rounds);
    ZL_CHECK_EQ(d.stats.oversize + d.stats.garbled, 0);
    zl_test_note("%d random datagrams of 1..%u bytes round-tripped", rounds, MAX_FRAME);
}

/* Writing a frame a few bytes at a time (a transmit register that is often
 * full) gives exactly the bytes of the one-shot encoder. */
static void test_slip_encoder_resumes(void)
{
    static uint8_t data[MAX_FRAME], whole[ZL_SLIP_ENCODED_MAX(MAX_FRAME)],
        pieces[ZL_SLIP_ENCODED_MAX(MAX_FRAME)];
    zl_test_rng rng;
    int round, same = 1, zero_cap_idle = 1;
    zl_test_rng_seed(&rng, 11);
    for (round = 0; round < ZL_TEST_ITERATIONS(1000) * 10; round++) {
        zl_slip_encoder e;
        size_t len = zl_test_rng_u32(&rng) % MAX_FRAME, i, got = 0;
        int n;
        for (i = 0; i < len; i++)
            data[i] = awkward_byte(&rng);
        n = zl_slip_encode(data, len, whole, sizeof whole);
        zl_slip_encoder_start(&e, data, len);
        while (!zl_slip_encoder_done(&e)) {
            size_t cap = zl_test_rng_u32(&rng) % 4u; /* 0 .. 3 bytes of room */
            size_t w = zl_slip_encoder_write(&e, pieces + got, cap);
            zero_cap_idle &= cap != 0 || w == 0;
            same &= w <= cap;
            got += w;
        }
        same &= zl_slip_encoder_write(&e, pieces + got, 4) == 0; /* nothing after done */
        same &= n >= 2 && got == (size_t)n && memcmp(whole, pieces, got) == 0;
    }
    ZL_CHECK(same);
    ZL_CHECK(zero_cap_idle);
}

/* Back-to-back frames share nothing; repeated ENDs and frames sent without
 * a leading END (other SLIP senders) decode the same. */
static void test_slip_frame_boundaries(void)
{
    static const uint8_t stream[] = {0xC0, 0xC0, 0xC0, 'a', 'b', 0xC0, 'c', 0xC0, 0xC0,
                                     0xDB, 0xDC, 0xC0};
    uint8_t buf[16];
    zl_slip_decoder d;
    int lens[4], n = 0;
    size_t i;
    zl_slip_decoder_init(&d, buf, sizeof buf);
    for (i = 0; i < sizeof stream; i++) {
        int r = zl_slip_decoder_push(&d, stream[i]);
        if (r > 0 && n < 4) {
            lens[n] = r;
            /* Each frame's bytes as delivered. */
            if (n == 0)
                ZL_CHECK(memcmp(d.buf, "ab", 2) == 0);
            if (n == 1)
                ZL_CHECK(d.buf[0] == 'c');
            if (n == 2)
                ZL_CHECK(d.buf[0] == ZL_SLIP_END);
            n++;
        }
    }
    ZL_CHECK_EQ(n, 3);
    ZL_CHECK_EQ(lens[0], 2);
    ZL_CHECK_EQ(lens[1], 1);
    ZL_CHECK_EQ(lens[2], 1);
    ZL_CHECK_EQ(d.stats.frames, 3);
    ZL_CHECK_EQ(d.stats.oversize + d.stats.garbled, 0);
    ZL_CHECK_EQ(d.stats.bytes, (uint32_t)sizeof stream);
}

/* A frame longer than the buffer is dropped and counted at its END; one
 * of exactly the buffer's size fits; the next frame is unharmed. */
static void test_slip_oversize_dropped(void)
{
    uint8_t data[9], wire[ZL_SLIP_ENCODED_MAX(9)];
    uint8_t *buf = (uint8_t *)zl_test_exact_buffer(8);
    zl_slip_decoder d;
    int n, frames, last;
    memset(data, 0xDB, sizeof data); /* every byte escaped */
    zl_slip_decoder_init(&d, buf, 8);
    n = zl_slip_encode(data, 9, wire, sizeof wire);
    last = push_all(&d, wire, (size_t)n, &frames);
    ZL_CHECK_EQ(frames, 0);
    ZL_CHECK_EQ(last, 0);
    ZL_CHECK_EQ(d.stats.oversize, 1);
    n = zl_slip_encode(data, 8, wire, sizeof wire);
    last = push_all(&d, wire, (size_t)n, &frames);
    ZL_CHECK_EQ(frames, 1);
    ZL_CHECK_EQ(last, 8);
    ZL_CHECK(memcmp(d.buf, data, 8) == 0);
    ZL_CHECK_EQ(d.stats.frames, 1);
    ZL_CHECK_EQ(d.stats.oversize, 1);
    zl_test_release_buffer(buf);
}

/* ESC followed by anything but ESC_END / ESC_ESC, or by END, breaks the
 * frame: dropped, counted once, the next frame decodes. */
static void test_slip_garbled_dropped(void)
{
    static const uint8_t bad_escape[] = {0xC0, 'x', 0xDB, 'y', 'z', 0xC0};
    static const uint8_t escape_then_end[] = {'x', 0xDB, 0xC0};
    static const uint8_t good[] = {0xC0, 'o', 'k', 0xC0};
    uint8_t buf[16];
    zl_slip_decoder d;
    int frames, last;
    zl_slip_decoder_init(&d, buf, sizeof buf);
    last = push_all(&d, bad_escape, sizeof bad_escape, &frames);
    ZL_CHECK_EQ(frames, 0);
    ZL_CHECK_EQ(d.stats.garbled, 1);
    last = push_all(&d, escape_then_end, sizeof escape_then_end, &frames);
    ZL_CHECK_EQ(frames, 0);
    ZL_CHECK_EQ(d.stats.garbled, 2);
    last = push_all(&d, good, sizeof good, &frames);
    ZL_CHECK_EQ(frames, 1);
    ZL_CHECK_EQ(last, 2);
    ZL_CHECK(memcmp(d.buf, "ok", 2) == 0);
    ZL_CHECK_EQ(d.stats.frames, 1);
    ZL_CHECK_EQ(d.stats.oversize, 0);
}

/* Line noise: random bytes rich in END and ESC. Every frame returned fits
 * the buffer (an exact-size allocation on hosts, so AddressSanitizer sees
 * any write past it), and a valid frame after an END still decodes. */
static void test_slip_noise(void)
{
    static const uint8_t probe[] = {0xC0, 'z', 'l', 0xDB, 0xDD, 0xC0};
    enum { CAP = 24 };
    uint8_t *buf = (uint8_t *)zl_test_exact_buffer(CAP);
    zl_slip_decoder d;
    zl_test_rng rng;
    uint32_t i, pushes = (uint32_t)ZL_TEST_ITERATIONS(200000), returned = 0, ends = 0;
    int fits = 1, frames, last;
    zl_test_rng_seed(&rng, 99);
    zl_slip_decoder_init(&d, buf, CAP);
    for (i = 0; i < pushes; i++) {
        uint8_t b = awkward_byte(&rng);
        int r = zl_slip_decoder_push(&d, b);
        ends += b == ZL_SLIP_END;
        fits &= r >= 0 && r <= CAP;
        returned += r > 0;
    }
    ZL_CHECK(fits);
    ZL_CHECK_EQ(d.stats.bytes, pushes);
    ZL_CHECK_EQ(d.stats.frames, returned);
    /* Only an END closes a frame, and each closes at most one. */
    ZL_CHECK(d.stats.frames + d.stats.oversize + d.stats.garbled <= ends);
    ZL_CHECK(d.stats.frames > 0 && d.stats.garbled > 0 && d.stats.oversize > 0);
    zl_test_note("noise: %u bytes, %u frames, %u oversize, %u garbled", pushes, d.stats.frames,
                 d.stats.oversize, d.stats.garbled);
    /* The probe's first END may also close what the noise left open, which
     * then arrives as a frame of its own (SLIP cannot tell noise apart). */
    last = push_all(&d, probe, sizeof probe, &frames);
    ZL_CHECK(frames == 1 || frames == 2);
    ZL_CHECK_EQ(last, 3);
    ZL_CHECK(memcmp(d.buf, "zl\xDB", 3) == 0);
    zl_test_release_buffer(buf);
}

void zl_suite_slip(void)
{
    ZL_RUN(test_slip_known_encoding);
    ZL_RUN(test_slip_encode_overflow);
    ZL_RUN(test_slip_round_trip);
    ZL_RUN(test_slip_encoder_resumes);
    ZL_RUN(test_slip_frame_boundaries);
    ZL_RUN(test_slip_oversize_dropped);
    ZL_RUN(test_slip_garbled_dropped);
    ZL_RUN(test_slip_noise);
}
