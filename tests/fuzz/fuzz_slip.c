/* fuzz_slip.c - libFuzzer harness for SLIP framing: a hostile byte stream
 * through the decoder, and the input itself as a datagram through both ends. */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_slip.h"

/* The input: byte 0 picks the decoder's buffer size (1..256), the rest is
 * the stream as it came off the wire. The buffer is allocated at exactly
 * that size, so AddressSanitizer catches a write past it. */
#define MAX_CAP 256u

/* A frame the decoder delivered is something a sender can produce:
 * encoding it again and decoding that gives the same bytes at the END. */
static void check_reencodes(const uint8_t *frame, size_t len, size_t cap)
{
    static uint8_t wire[ZL_SLIP_ENCODED_MAX(MAX_CAP)], again[MAX_CAP];
    zl_slip_decoder d;
    int n, i, got = 0;
    n = zl_slip_encode(frame, len, wire, sizeof wire);
    REQUIRE(n >= 2 && (size_t)n <= ZL_SLIP_ENCODED_MAX(len));
    zl_slip_decoder_init(&d, again, cap);
    for (i = 0; i < n; i++) {
        int r = zl_slip_decoder_push(&d, wire[i]);
        REQUIRE(r == 0 || i == n - 1);
        if (r > 0)
            got = r;
    }
    REQUIRE((size_t)got == len && memcmp(again, frame, len) == 0);
    REQUIRE(d.stats.oversize == 0 && d.stats.garbled == 0);
}

/* The whole input as one datagram: its encoding has END only at the two
 * ends, and a resumable encoder fed a byte at a time writes the same. */
static void check_encoding(const uint8_t *data, size_t size)
{
    static uint8_t wire[ZL_SLIP_ENCODED_MAX(4096)], byte_wise[ZL_SLIP_ENCODED_MAX(4096)];
    zl_slip_encoder e;
    size_t i, n = 0;
    int whole;
    if (size > 4096)
        return;
    whole = zl_slip_encode(data, size, wire, sizeof wire);
    REQUIRE(whole >= 2 && wire[0] == ZL_SLIP_END && wire[whole - 1] == ZL_SLIP_END);
    for (i = 1; i + 1 < (size_t)whole; i++)
        REQUIRE(wire[i] != ZL_SLIP_END);
    zl_slip_encoder_start(&e, data, size);
    while (!zl_slip_encoder_done(&e)) {
        REQUIRE(n < sizeof byte_wise);
        n += zl_slip_encoder_write(&e, byte_wise + n, 1);
    }
    REQUIRE(n == (size_t)whole && memcmp(wire, byte_wise, n) == 0);
    REQUIRE(zl_slip_encode(data, size, wire, (size_t)whole - 1) == ZL_ERR_OVERFLOW);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zl_slip_decoder d;
    uint8_t *buf;
    size_t cap, i;
    uint32_t delivered = 0;
    if (size == 0)
        return 0;
    cap = (size_t)data[0] + 1u;
    buf = (uint8_t *)malloc(cap);
    REQUIRE(buf != NULL);
    zl_slip_decoder_init(&d, buf, cap);
    for (i = 1; i < size; i++) {
        uint32_t dropped = d.stats.oversize + d.stats.garbled;
        int r = zl_slip_decoder_push(&d, data[i]);
        REQUIRE(r >= 0 && (size_t)r <= cap);
        /* Only an END ends a frame, and it is counted in one place. */
        if (data[i] != ZL_SLIP_END)
            REQUIRE(r == 0 && d.stats.oversize + d.stats.garbled == dropped);
        else
            REQUIRE(d.stats.oversize + d.stats.garbled - dropped + (r > 0 ? 1u : 0u) <= 1u);
        if (r > 0) {
            delivered++;
            check_reencodes(d.buf, (size_t)r, cap);
        }
    }
    REQUIRE(d.stats.frames == delivered);
    REQUIRE(d.stats.bytes == (uint32_t)(size - 1));
    free(buf);
    check_encoding(data + 1, size - 1);
    return 0;
}
