/* fuzz_cmdstream.c - libFuzzer harness for the command run reader and the
 * server's input buffer: hostile runs in, ordering and real-time invariants checked. */
/* FUZZ_FLAGS: -DZL_CMDSTREAM_MAX_PER_PACKET=8 -DZL_CMDBUF_CAPACITY=16
 * FUZZ_MAX_LEN: 512
 * (tools/fuzz.sh passes them. Runs of 8 and a buffer of 16 reach every
 * limit, overflow included, with a quarter of the decoding per packet, and
 * 512 bytes still hold several packets; together about 5 times the
 * executions per second of the default capacities and 4 KB inputs.) */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_cmdbuf.h"
#include "zl_cmdstream.h"

/* The input is one settings byte, then a series of records, each a packet
 * arriving at one client's input buffer:
 *   settings   bits 0..5 window length (20..83 ms, short so windows end
 *              often); bit 6 no jitter buffer; bit 7 no catch-up budget
 *   byte 0     bits 0..5 milliseconds that pass before the packet; bit 6
 *              a server tick (15.625 ms) runs after it; bit 7 a second one
 *   byte 1     packet length (0..255), cut to what the input still has
 *   then       the packet
 * Each packet is copied into a buffer of exactly its length, so
 * AddressSanitizer catches a read past its end. */
/* How commands are read: zl_usercmd_schema prepared once per run. */
static zl_schema_plan cmd_plan;

#define TICK_US 15625u
#define FLAG_TICK 0x40u
#define FLAG_TICK2 0x80u

static zl_cmdbuf buf;

/* What the reader promises, whatever the bytes; round_trip: also write
 * what was accepted and read it back (the costliest check, so the harness
 * asks it once per input: every packet is a first one in some input). */
static int check_read(const uint8_t *p, size_t len, uint32_t known, zl_usercmd *out,
                      int round_trip)
{
    zl_bitreader r;
    int n, i;
    zl_bitreader_init(&r, p, len);
    n = zl_cmdstream_read(&r, &cmd_plan, known, out, ZL_CMDSTREAM_MAX_PER_PACKET);
    if (n < 0) {
        REQUIRE(n == ZL_ERR_OVERFLOW || n == ZL_ERR_MALFORMED);
        return 0;
    }
    REQUIRE(n <= ZL_CMDSTREAM_MAX_PER_PACKET);
    for (i = 0; i < n; i++) {
        REQUIRE(zl_usercmd_validate(&out[i]) == ZL_OK);
        REQUIRE(out[i].sequence == out[0].sequence + (uint32_t)i);
    }
    if (n > 0)
        REQUIRE(out[0].sequence - known + 32768u <= 65535u);
    /* What was accepted writes again and reads back the same. */
    if (round_trip && n > 0) {
        static uint8_t again[ZL_MAX_PACKET * 4];
        static zl_usercmd back[ZL_CMDSTREAM_MAX_PER_PACKET];
        zl_bitwriter w;
        int bytes;
        zl_bitwriter_init(&w, again, sizeof again);
        REQUIRE(zl_cmdstream_write(&w, out, n) >= 0);
        bytes = zl_bitwriter_finish(&w);
        REQUIRE(bytes > 0);
        zl_bitreader_init(&r, again, (size_t)bytes);
        REQUIRE(zl_cmdstream_read(&r, &cmd_plan, out[0].sequence, back, ZL_CMDSTREAM_MAX_PER_PACKET) == n);
        for (i = 0; i < n; i++)
            REQUIRE(zl_schema_equal(&zl_usercmd_schema, &back[i], &out[i], ZL_SCHEMA_ALL));
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)zl_schema_plan_init(&cmd_plan, &zl_usercmd_schema);
    zl_cmdbuf_settings s;
    zl_cmdbuf_stats st;
    zl_usercmd run[ZL_CMDSTREAM_MAX_PER_PACKET], out[8];
    uint64_t now = 1000000, ticked_us = 0, ran_us = 0;
    uint32_t last_run = 0;
    int any_run = 0, started = 0, tripped = 0;
    size_t at = 1;
    if (size < 1)
        return 0;
    zl_cmdbuf_settings_default(&s);
    s.window_ms = 20u + (data[0] & 63u);
    if (data[0] & 0x40u)
        s.max_target_ms = 0;
    if (data[0] & 0x80u)
        s.budget_ms = 0;
    zl_cmdbuf_init(&buf, &s, 1);

    while (at + 2 <= size) {
        uint8_t flags = data[at];
        size_t len = data[at + 1], ticks, k;
        uint8_t *copy;
        int n, kept;
        at += 2;
        if (len > size - at)
            len = size - at;
        now += (uint64_t)(flags & 63u) * 1000u;
        copy = zl_fuzz_copy(data + at, len);
        at += len;
        n = check_read(copy, len, zl_cmdbuf_newest(&buf), run, !tripped);
        tripped |= n > 0;
        free(copy);
        kept = zl_cmdbuf_push(&buf, run, n, now);
        REQUIRE(kept >= 0 && kept <= n);
        started |= kept > 0;

        ticks = (size_t)((flags & FLAG_TICK) != 0) + (size_t)((flags & FLAG_TICK2) != 0);
        for (k = 0; k < ticks; k++) {
            int got = zl_cmdbuf_pop(&buf, TICK_US, out, 8), i;
            REQUIRE(got >= 0 && got <= 8);
            if (started)
                ticked_us += TICK_US;
            /* Each command runs once, in order, and the total never gets
             * ahead of the real time since the first one by more than half
             * a command. */
            for (i = 0; i < got; i++) {
                REQUIRE(zl_usercmd_validate(&out[i]) == ZL_OK);
                REQUIRE(!any_run || out[i].sequence - last_run - 1u < 0x7FFFFFFFu);
                last_run = out[i].sequence;
                any_run = 1;
                ran_us += (uint64_t)out[i].msec * 1000u;
            }
            REQUIRE(ran_us <= ticked_us + ZL_USERCMD_MSEC_MAX * 500u);
        }

        zl_cmdbuf_get_stats(&buf, &st);
        REQUIRE(st.received == st.duplicates + st.invalid + st.overflow + st.dropped_ahead +
                                   st.executed + st.depth_cmds);
        REQUIRE(st.depth_cmds <= ZL_CMDBUF_CAPACITY);
        REQUIRE(st.target_us <= s.max_target_ms * 1000u);
    }
    return 0;
}
