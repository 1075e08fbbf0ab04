/* test_cmdstream.c - command runs on the wire (round trip, widening, hostile
 * bytes) and the server's input buffer driven through a lossy, jittery link. */
#include <math.h>
#include <string.h>

#include "zl_bytes.h"
#include "zl_cmdbuf.h"
#include "zl_cmdstream.h"
#include "zl_conditioner.h"
#include "zl_loopnet.h"
#include "zl_test.h"

/* How commands are read: zl_usercmd_schema prepared once per run. */
static zl_schema_plan cmd_plan;

#define START_US 1000000u

/* A command whose every field follows from its sequence, so the server side
 * can check what it runs without a copy of what was sent. */
static zl_usercmd make_cmd(uint32_t seq, uint16_t msec)
{
    zl_usercmd c;
    uint32_t h = seq * 2654435761u;
    memset(&c, 0, sizeof c);
    c.sequence = seq;
    c.render_tick = seq / 2u;
    c.render_frac = (uint16_t)(h >> 3);
    c.render_span = (uint8_t)(seq % 3u);
    c.msec = msec;
    c.yaw = (zl_angle)(seq * 37u);
    c.pitch = (zl_angle)(h >> 16);
    c.buttons = (uint16_t)((seq / 50u) % 4u);
    c.forward = (int8_t)((int32_t)((seq / 20u) % 255u) - 127);
    c.side = (int8_t)((seq / 40u) % 2u ? 127 : -127);
    c.weapon = (uint8_t)((seq / 100u) % 3u);
    c.seed = (uint8_t)h;
    return c;
}

/* A random valid command following prev (or starting a run at seq). */
static zl_usercmd random_cmd(zl_test_rng *rng, const zl_usercmd *prev, uint32_t seq)
{
    zl_usercmd c;
    if (prev && zl_test_rng_range(rng, 0, 3) != 0) {
        c = *prev; /* usually a small change, like a real stream */
        c.yaw = (zl_angle)(c.yaw + zl_test_rng_range(rng, -300, 300));
        c.seed = (uint8_t)zl_test_rng_u32(rng);
    } else {
        c = make_cmd(zl_test_rng_u32(rng), (uint16_t)zl_test_rng_range(rng, 1, ZL_USERCMD_MSEC_MAX));
        c.render_tick = zl_test_rng_u32(rng) >> 1;
        c.up = (int8_t)zl_test_rng_range(rng, -127, 127);
    }
    c.sequence = seq;
    return c;
}

static int same_cmd(const zl_usercmd *a, const zl_usercmd *b)
{
    return zl_schema_equal(&zl_usercmd_schema, a, b, ZL_SCHEMA_ALL);
}

/* ---- The wire ---- */

static void test_round_trip_every_count(void)
{
    zl_test_rng rng;
    zl_usercmd in[ZL_CMDSTREAM_MAX_PER_PACKET], out[ZL_CMDSTREAM_MAX_PER_PACKET];
    uint8_t buf[ZL_MAX_PACKET];
    int round, count, i, ok = 1;
    long bits16 = 0;
    zl_test_rng_seed(&rng, 501);
    for (round = 0; round < ZL_TEST_ITERATIONS(40); round++) {
        for (count = 0; count <= ZL_CMDSTREAM_MAX_PER_PACKET; count++) {
            uint32_t first = zl_test_rng_u32(&rng);
            /* The server knows anything from a little behind the run to
             * well past it (the redundant tail is mostly old news). */
            uint32_t known = first + (uint32_t)zl_test_rng_range(&rng, -1000, 1000);
            zl_bitwriter w;
            zl_bitreader r;
            int bits, bytes, got;
            for (i = 0; i < count; i++)
                in[i] = random_cmd(&rng, i ? &in[i - 1] : NULL, first + (uint32_t)i);
            zl_bitwriter_init(&w, buf, sizeof buf);
            bits = zl_cmdstream_write(&w, in, count);
            bytes = zl_bitwriter_finish(&w);
            if (bits == ZL_ERR_OVERFLOW && count > 32) {
                /* Random commands change every field: long runs of them
                 * need not fit one packet, and the writer says so. */
                ok &= ZL_CHECK_EQ(bytes, ZL_ERR_OVERFLOW);
                continue;
            }
            ok &= ZL_CHECK(bits > 0 && bytes == (bits + 7) / 8);
            if (count == 16)
                bits16 += bits;
            zl_bitreader_init(&r, buf, (size_t)bytes);
            got = zl_cmdstream_read(&r, &cmd_plan, known, out, ZL_CMDSTREAM_MAX_PER_PACKET);
            ok &= ZL_CHECK_EQ(got, count);
            ok &= ZL_CHECK_EQ(zl_bitreader_bits_left(&r), (uint32_t)bytes * 8u - (uint32_t)bits);
            for (i = 0; i < count && got == count; i++)
                ok &= ZL_CHECK(same_cmd(&out[i], &in[i]));
            if (!ok)
                return;
        }
    }
    zl_test_note("a run of 16 random commands: %ld bits on average",
                 bits16 / ZL_TEST_ITERATIONS(40));
}

static void test_empty_run_is_cheap(void)
{
    uint8_t buf[8];
    zl_bitwriter w;
    zl_bitreader r;
    zl_usercmd out[1];
    zl_bitwriter_init(&w, buf, sizeof buf);
    ZL_CHECK_EQ(zl_cmdstream_write(&w, NULL, 0),
                (int)zl_bits_required(ZL_CMDSTREAM_MAX_PER_PACKET));
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK_EQ(zl_cmdstream_read(&r, &cmd_plan, 77, out, 1), 0);
    /* With no room at all, an empty run still reads. */
    zl_bitreader_init(&r, buf, 1);
    ZL_CHECK_EQ(zl_cmdstream_read(&r, &cmd_plan, 77, NULL, 0), 0);
}

/* Writes a run starting at `first` and reads it back knowing `known`;
 * returns the first sequence read (or a sentinel on failure). */
static uint32_t widen(uint32_t first, uint32_t known, int count)
{
    zl_usercmd in[4], out[4];
    uint8_t buf[128];
    zl_bitwriter w;
    zl_bitreader r;
    int i;
    for (i = 0; i < count; i++)
        in[i] = make_cmd(first + (uint32_t)i, 16);
    zl_bitwriter_init(&w, buf, sizeof buf);
    ZL_CHECK(zl_cmdstream_write(&w, in, count) > 0);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    if (!ZL_CHECK_EQ(zl_cmdstream_read(&r, &cmd_plan, known, out, 4), count))
        return 0xDEADBEEFu;
    for (i = 1; i < count; i++)
        ZL_CHECK_EQ(out[i].sequence, out[0].sequence + (uint32_t)i);
    return out[0].sequence;
}

static void test_widening_across_wraps(void)
{
    /* Across 2^16: the run is ahead of, behind, or straddles what is known. */
    ZL_CHECK_EQ(widen(0xFFFEu, 0xFFFDu, 4), 0xFFFEu);
    ZL_CHECK_EQ(widen(0x10001u, 0xFFF0u, 4), 0x10001u);
    ZL_CHECK_EQ(widen(0xFFF0u, 0x10003u, 4), 0xFFF0u);
    ZL_CHECK_EQ(widen(0x2FFFEu, 0x30000u, 4), 0x2FFFEu);
    /* Across 2^32. */
    ZL_CHECK_EQ(widen(0xFFFFFFFEu, 0xFFFFFFF0u, 4), 0xFFFFFFFEu);
    ZL_CHECK_EQ(widen(0xFFFFFFFDu, 2u, 4), 0xFFFFFFFDu);
    ZL_CHECK_EQ(widen(1u, 0xFFFFFFFFu, 4), 1u);
    /* The reach: 32767 ahead and 32768 behind widen right ... */
    ZL_CHECK_EQ(widen(100000u + 32767u, 100000u, 1), 100000u + 32767u);
    ZL_CHECK_EQ(widen(100000u - 32768u, 100000u, 1), 100000u - 32768u);
    /* ... one further is taken for the other side. */
    ZL_CHECK_EQ(widen(100000u + 32768u, 100000u, 1), 100000u - 32768u);
    /* The first packet of a client numbering from 1, against known 0. */
    ZL_CHECK_EQ(widen(1u, 0u, 3), 1u);
}

static void test_write_refuses(void)
{
    uint8_t buf[16];
    zl_bitwriter w;
    zl_usercmd in[3];
    int i;
    for (i = 0; i < 3; i++)
        in[i] = make_cmd(500u + (uint32_t)i, 16);
    zl_bitwriter_init(&w, buf, sizeof buf);
    in[2].sequence = 503; /* a gap */
    ZL_CHECK_EQ(zl_cmdstream_write(&w, in, 3), ZL_ERR_INVALID);
    in[2].sequence = 502;
    in[1].msec = 0; /* invalid */
    ZL_CHECK_EQ(zl_cmdstream_write(&w, in, 3), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 0); /* nothing written */
    in[1].msec = 16;
    /* 16 bytes cannot hold three full first-of-run-sized commands plus
     * header: the writer's overflow comes back. */
    for (i = 0; i < 3; i++)
        in[i] = make_cmd(900u + (uint32_t)i * 1u, (uint16_t)(10 + i * 50));
    in[1].yaw = 1;
    in[2].yaw = 40000;
    ZL_CHECK_EQ(zl_cmdstream_write(&w, in, 3), ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(zl_bitwriter_finish(&w), ZL_ERR_OVERFLOW);
}

static void test_hostile_truncation_every_length(void)
{
    zl_test_rng rng;
    zl_usercmd in[16], out[16];
    uint8_t buf[512];
    zl_bitwriter w;
    int i, bytes, ok = 1;
    size_t len;
    zl_test_rng_seed(&rng, 502);
    for (i = 0; i < 16; i++)
        in[i] = random_cmd(&rng, i ? &in[i - 1] : NULL, 7000u + (uint32_t)i);
    zl_bitwriter_init(&w, buf, sizeof buf);
    ZL_CHECK(zl_cmdstream_write(&w, in, 16) > 0);
    bytes = zl_bitwriter_finish(&w);
    /* Every cut, read from a buffer of exactly that size (AddressSanitizer
     * traps a read past it), fails with the overflow, never a short run. */
    for (len = 0; len < (size_t)bytes && ok; len++) {
        uint8_t *exact = (uint8_t *)zl_test_exact_buffer(len);
        zl_bitreader r;
        memcpy(exact, buf, len);
        zl_bitreader_init(&r, exact, len);
        ok = ZL_CHECK_EQ(zl_cmdstream_read(&r, &cmd_plan, 7000, out, 16), ZL_ERR_OVERFLOW);
        zl_test_release_buffer(exact);
    }
    /* A run longer than the caller's room is malformed, not truncated. */
    {
        zl_bitreader r;
        zl_bitreader_init(&r, buf, (size_t)bytes);
        ZL_CHECK_EQ(zl_cmdstream_read(&r, &cmd_plan, 7000, out, 15), ZL_ERR_MALFORMED);
        zl_bitreader_init(&r, buf, (size_t)bytes);
        ZL_CHECK_EQ(zl_cmdstream_read(&r, &cmd_plan, 7000, out, 16), 16);
    }
}

static void test_hostile_random_bytes(void)
{
    zl_test_rng rng;
    zl_usercmd out[ZL_CMDSTREAM_MAX_PER_PACKET];
    uint8_t buf[64];
    int round, ok_runs = 0, bad = 0, i;
    zl_test_rng_seed(&rng, 503);
    for (round = 0; round < ZL_TEST_ITERATIONS(20000); round++) {
        size_t len = (size_t)zl_test_rng_range(&rng, 0, (int32_t)sizeof buf), k;
        int max = zl_test_rng_range(&rng, 0, ZL_CMDSTREAM_MAX_PER_PACKET);
        zl_bitreader r;
        int got;
        for (k = 0; k < len; k++)
            buf[k] = (uint8_t)zl_test_rng_u32(&rng);
        /* Small counts are where accepted runs come from: bias toward them. */
        if (len > 0)
            buf[0] = (uint8_t)(buf[0] & 0xC3u);
        zl_bitreader_init(&r, buf, len);
        got = zl_cmdstream_read(&r, &cmd_plan, 123456u, out, max);
        if (got >= 0) {
            ok_runs++;
            ZL_CHECK(got <= max);
            for (i = 0; i < got; i++) {
                ZL_CHECK_EQ(zl_usercmd_validate(&out[i]), ZL_OK);
                ZL_CHECK_EQ(out[i].sequence - out[0].sequence, (uint32_t)i);
            }
            if (got > 0)
                ZL_CHECK(out[0].sequence - 123456u + 32768u <= 65535u);
        } else {
            bad++;
            ZL_CHECK(got == ZL_ERR_OVERFLOW || got == ZL_ERR_MALFORMED);
        }
    }
    ZL_CHECK(ok_runs > 0 && bad > 0);
    zl_test_note("random bytes: %d runs accepted (all valid), %d rejected", ok_runs, bad);
}

/* ---- The input buffer, unit by unit ---- */

static void check_accounting(const zl_cmdbuf *b)
{
    zl_cmdbuf_stats st;
    zl_cmdbuf_get_stats(b, &st);
    ZL_CHECK_EQ(st.received, (uint64_t)st.duplicates + st.invalid + st.overflow +
                                 st.dropped_ahead + st.executed + st.depth_cmds);
}

static void test_push_dedupes_and_counts(void)
{
    static zl_cmdbuf b;
    zl_usercmd run[8], out[8];
    zl_cmdbuf_stats st;
    int i;
    zl_cmdbuf_init(&b, NULL, 10);
    ZL_CHECK_EQ(zl_cmdbuf_newest(&b), 9);
    for (i = 0; i < 8; i++)
        run[i] = make_cmd(10u + (uint32_t)i, 16);
    ZL_CHECK_EQ(zl_cmdbuf_push(&b, run, 3, START_US), 3);     /* 10..12 */
    ZL_CHECK_EQ(zl_cmdbuf_push(&b, run, 5, START_US), 2);     /* 13, 14 new */
    ZL_CHECK_EQ(zl_cmdbuf_push(&b, run + 7, 1, START_US), 1); /* 17: 15, 16 lost */
    ZL_CHECK_EQ(zl_cmdbuf_push(&b, run + 5, 2, START_US), 0); /* too late */
    ZL_CHECK_EQ(zl_cmdbuf_newest(&b), 17);
    run[0] = make_cmd(18, 16);
    run[0].msec = 0;
    run[1] = make_cmd(19, 16);
    run[1].side = -128;
    run[2] = make_cmd(20, 16);
    ZL_CHECK_EQ(zl_cmdbuf_push(&b, run, 3, START_US), 1);
    /* A copy from half the sequence space away is stale, not new. */
    run[3] = make_cmd(20u + 0x80000000u, 16);
    ZL_CHECK_EQ(zl_cmdbuf_push(&b, run + 3, 1, START_US), 0);
    zl_cmdbuf_get_stats(&b, &st);
    ZL_CHECK_EQ(st.received, 3 + 5 + 1 + 2 + 3 + 1);
    ZL_CHECK_EQ(st.duplicates, 3 + 2 + 1);
    ZL_CHECK_EQ(st.lost, 2);
    ZL_CHECK_EQ(st.invalid, 2);
    ZL_CHECK_EQ(st.depth_cmds, 7);
    ZL_CHECK_EQ(st.depth_us, 7 * 16000);
    check_accounting(&b);
    /* They come out in order: 10..14, 17, 20, one per 16 ms of real time. */
    {
        static const uint32_t want[7] = {10, 11, 12, 13, 14, 17, 20};
        for (i = 0; i < 7; i++) {
            zl_usercmd expect = make_cmd(want[i], 16);
            ZL_CHECK_EQ(zl_cmdbuf_pop(&b, 16000, out, 8), 1);
            ZL_CHECK(same_cmd(&out[0], &expect));
        }
    }
    ZL_CHECK_EQ(zl_cmdbuf_pop(&b, 16000, out, 8), 0);
    check_accounting(&b);
}

static void test_push_overflow_counted(void)
{
    static zl_cmdbuf b;
    static zl_usercmd run[ZL_CMDBUF_CAPACITY + 5];
    zl_cmdbuf_stats st;
    int i;
    zl_cmdbuf_init(&b, NULL, 1);
    for (i = 0; i < ZL_CMDBUF_CAPACITY + 5; i++)
        run[i] = make_cmd(1u + (uint32_t)i, 8);
    ZL_CHECK_EQ(zl_cmdbuf_push(&b, run, ZL_CMDBUF_CAPACITY + 5, START_US), ZL_CMDBUF_CAPACITY);
    zl_cmdbuf_get_stats(&b, &st);
    ZL_CHECK_EQ(st.overflow, 5);
    ZL_CHECK_EQ(st.depth_cmds, ZL_CMDBUF_CAPACITY);
    /* Dropped for room means gone: the newest moved past them. */
    ZL_CHECK_EQ(zl_cmdbuf_newest(&b), ZL_CMDBUF_CAPACITY + 5);
    check_accounting(&b);
}

static void test_pop_respects_max_and_credit(void)
{
    static zl_cmdbuf b;
    zl_usercmd run[6], out[6];
    zl_cmdbuf_settings s;
    int i;
    zl_cmdbuf_settings_default(&s);
    s.max_target_ms = 0;
    zl_cmdbuf_init(&b, &s, 1);
    for (i = 0; i < 6; i++)
        run[i] = make_cmd(1u + (uint32_t)i, 5);
    ZL_CHECK_EQ(zl_cmdbuf_pop(&b, 16000, out, 6), 0); /* nothing yet, no credit */
    zl_cmdbuf_push(&b, run, 6, START_US);
    /* 16 ms of credit runs 5 ms commands while it covers half of the
     * next: three, 1 ms left. */
    ZL_CHECK_EQ(zl_cmdbuf_pop(&b, 16000, out, 6), 3);
    ZL_CHECK_EQ(out[2].sequence, 3);
    /* 2 ms is less than half of 5: nothing. */
    ZL_CHECK_EQ(zl_cmdbuf_pop(&b, 1000, out, 6), 0);
    /* max holds back what the credit would allow ... */
    ZL_CHECK_EQ(zl_cmdbuf_pop(&b, 16000, out, 1), 1);
    ZL_CHECK_EQ(out[0].sequence, 4);
    /* ... and the credit keeps it for the next tick, which runs at most
     * catchup_ticks ticks' worth (3 x 2 ms: one 5 ms command), then the
     * rest. */
    ZL_CHECK_EQ(zl_cmdbuf_pop(&b, 2000, out, 6), 1);
    ZL_CHECK_EQ(out[0].sequence, 5);
    ZL_CHECK_EQ(zl_cmdbuf_pop(&b, 2000, out, 6), 1);
    ZL_CHECK_EQ(out[0].sequence, 6);
}

/* ---- The input buffer through a simulated link ---- */

/* The client sends through the conditioner (both directions impaired); the
 * server reads its socket every step, runs its ticks, and acknowledges the
 * newest command it has with a 4-byte message each tick. */
#define MAX_SEQ 8192u
#define STEP_US 500u

typedef struct sim_config {
    uint32_t frame_us;       /* client frame: one command each */
    uint32_t claim_q8;       /* msec claimed per real ms, x 256 (256: honest) */
    uint32_t frames_per_packet;
    int redundancy;          /* most commands per packet */
    uint32_t tick_us;        /* server tick */
    uint32_t run_us;         /* commands are made for this long ... */
    uint32_t drain_us;       /* ... then the client only resends */
    uint32_t warmup_us;      /* per-tick figures cover warmup_us .. run_us */
    uint32_t mute_from_us, mute_to_us; /* the client sends nothing then */
    zl_conditioner_settings up, down;
    zl_cmdbuf_settings buf;
} sim_config;

typedef struct sim_result {
    uint32_t made;           /* commands the client made */
    uint32_t executed, out_of_order, wrong_content;
    uint32_t packets_sent, packets_lost;
    uint32_t never_received; /* sequences up to the newest never seen */
    uint64_t executed_us;    /* msec run, in microseconds */
    int64_t max_lead_us;     /* most the client ran ahead of real time */
    uint32_t ticks;          /* after warmup */
    double tick_ms_sum, tick_ms_sumsq; /* msec run per tick, after warmup */
    uint32_t tick_ms_max;
    uint64_t wait_us;        /* arrival to execution, after warmup */
    uint32_t waited;
    uint32_t underruns_late; /* underruns after warmup */
    uint32_t delay_added_us; /* by the buffer, until the client stopped */
    zl_cmdbuf_stats st;
} sim_result;

static zl_loopnet net;
static zl_loopnet_endpoint ep_c, ep_s;
static zl_platform raw_c, raw_s, hal_c;
static zl_conditioner cond;
static zl_addr addr_c, addr_s;
static zl_cmdbuf sbuf;
static uint16_t msec_of[MAX_SEQ];
static uint64_t arrived_at[MAX_SEQ];
static uint8_t received[MAX_SEQ / 8];

static void default_config(sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->frame_us = 15625;
    c->claim_q8 = 256;
    c->frames_per_packet = 1;
    c->redundancy = 16;
    c->tick_us = 15625;
    c->run_us = 10000000;
    c->drain_us = 1000000;
    c->warmup_us = 3000000;
    c->up.enabled = 1;
    c->up.latency_us = 40000;
    c->down = c->up;
    zl_cmdbuf_settings_default(&c->buf);
}

static void client_send(const sim_config *cfg, uint32_t newest, uint32_t acked, sim_result *res)
{
    zl_usercmd run[ZL_CMDSTREAM_MAX_PER_PACKET];
    uint8_t pkt[ZL_MAX_PACKET];
    zl_bitwriter w;
    uint32_t first = acked + 1u, s;
    int n = 0, bytes;
    if (newest - first + 1u > (uint32_t)cfg->redundancy)
        first = newest + 1u - (uint32_t)cfg->redundancy;
    for (s = first; s <= newest; s++)
        run[n++] = make_cmd(s, msec_of[s]);
    zl_bitwriter_init(&w, pkt, sizeof pkt);
    ZL_CHECK(zl_cmdstream_write(&w, run, n) >= 0);
    bytes = zl_bitwriter_finish(&w);
    ZL_CHECK_EQ(hal_c.send(hal_c.ctx, &addr_s, pkt, (size_t)bytes), ZL_OK);
    res->packets_sent++;
}

static void server_receive(uint64_t now)
{
    uint8_t pkt[ZL_MAX_PACKET];
    zl_usercmd run[ZL_CMDSTREAM_MAX_PER_PACKET];
    zl_addr from;
    int len, n, i;
    while ((len = raw_s.receive(raw_s.ctx, &from, pkt, sizeof pkt)) >= 0) {
        zl_bitreader r;
        zl_bitreader_init(&r, pkt, (size_t)len);
        n = zl_cmdstream_read(&r, &cmd_plan, zl_cmdbuf_newest(&sbuf), run, ZL_CMDSTREAM_MAX_PER_PACKET);
        if (!ZL_CHECK(n >= 0))
            continue;
        for (i = 0; i < n; i++) {
            uint32_t s = run[i].sequence;
            if (s < MAX_SEQ && !(received[s / 8] & (1u << (s % 8)))) {
                received[s / 8] = (uint8_t)(received[s / 8] | (1u << (s % 8)));
                arrived_at[s] = now;
            }
        }
        zl_cmdbuf_push(&sbuf, run, n, now);
    }
}

static void server_tick(const sim_config *cfg, uint64_t now, uint64_t first_push_us,
                        uint32_t *last_executed, sim_result *res)
{
    zl_usercmd out[ZL_CMDBUF_CAPACITY];
    uint8_t ack[4];
    uint32_t before = sbuf.stats.underruns, tick_ms = 0;
    int n, i;
    /* Steady state: after the warmup, while the client is still playing. */
    int late = now >= START_US + cfg->warmup_us && now < START_US + cfg->run_us;
    n = zl_cmdbuf_pop(&sbuf, cfg->tick_us, out, ZL_CMDBUF_CAPACITY);
    for (i = 0; i < n; i++) {
        uint32_t s = out[i].sequence;
        zl_usercmd want = make_cmd(s, s < MAX_SEQ ? msec_of[s] : 0);
        if (s <= *last_executed)
            res->out_of_order++;
        if (s >= MAX_SEQ || !same_cmd(&out[i], &want))
            res->wrong_content++;
        *last_executed = s;
        res->executed++;
        res->executed_us += (uint64_t)out[i].msec * 1000u;
        tick_ms += out[i].msec;
        if (late && s < MAX_SEQ) {
            res->wait_us += now - arrived_at[s];
            res->waited++;
        }
    }
    if (first_push_us) {
        /* Real time since the first command arrived, against what ran. */
        int64_t lead = (int64_t)res->executed_us - (int64_t)(now - first_push_us);
        if (lead > res->max_lead_us)
            res->max_lead_us = lead;
    }
    if (late) {
        res->ticks++;
        res->tick_ms_sum += tick_ms;
        res->tick_ms_sumsq += (double)tick_ms * tick_ms;
        if (tick_ms > res->tick_ms_max)
            res->tick_ms_max = tick_ms;
        res->underruns_late += sbuf.stats.underruns - before;
        res->delay_added_us = sbuf.stats.delay_added_us;
    }
    zl_put_le32(ack, zl_cmdbuf_newest(&sbuf));
    ZL_CHECK_EQ(raw_s.send(raw_s.ctx, &addr_c, ack, sizeof ack), ZL_OK);
}

static void run_sim(const sim_config *cfg, uint64_t seed, sim_result *res)
{
    zl_platform clock;
    uint64_t now, end, next_frame, next_tick, first_push_us = 0;
    uint32_t newest = 0, acked = 0, frames_unsent = 0, last_executed = 0, s;
    uint64_t claim_acc = 0;
    memset(res, 0, sizeof *res);
    memset(received, 0, sizeof received);
    zl_test_fake_platform(&clock);
    zl_test_time_us = START_US;
    zl_loopnet_init(&net, &clock);
    addr_c = zl_addr_ipv4(10, 0, 0, 1, 1000);
    addr_s = zl_addr_ipv4(10, 0, 0, 2, 2000);
    zl_loopnet_open(&net, &ep_c, &addr_c, &raw_c);
    zl_loopnet_open(&net, &ep_s, &addr_s, &raw_s);
    zl_conditioner_init(&cond, &raw_c, seed, &hal_c);
    ZL_CHECK_EQ(zl_conditioner_configure(&cond, ZL_CONDITIONER_SEND, &cfg->up), ZL_OK);
    ZL_CHECK_EQ(zl_conditioner_configure(&cond, ZL_CONDITIONER_RECEIVE, &cfg->down), ZL_OK);
    zl_cmdbuf_init(&sbuf, &cfg->buf, 1);

    now = START_US;
    end = START_US + cfg->run_us + cfg->drain_us;
    next_frame = now + cfg->frame_us;
    next_tick = now + cfg->tick_us;
    for (; now < end; now += STEP_US) {
        uint8_t buf[16];
        zl_addr from;
        int len;
        int muted = now >= START_US + cfg->mute_from_us && now < START_US + cfg->mute_to_us;
        zl_test_time_us = now;
        /* The client: acks in, one command per frame, a packet per batch. */
        while ((len = hal_c.receive(hal_c.ctx, &from, buf, sizeof buf)) >= 0) {
            uint32_t a = len == 4 ? zl_get_le32(buf) : 0;
            if (a - acked < 0x80000000u)
                acked = a;
        }
        if (now >= next_frame) {
            next_frame += cfg->frame_us;
            if (now < START_US + cfg->run_us && newest + 1u < MAX_SEQ) {
                /* msec with the remainder carried, times the claim. */
                uint64_t m;
                claim_acc += (uint64_t)cfg->frame_us * cfg->claim_q8;
                m = claim_acc / 256000u;
                claim_acc -= m * 256000u;
                newest++;
                msec_of[newest] = (uint16_t)(m < 1 ? 1 : m > 250 ? 250 : m);
                res->made++;
            }
            if (++frames_unsent >= cfg->frames_per_packet) {
                frames_unsent = 0;
                if (!muted && newest > 0)
                    client_send(cfg, newest, acked, res);
            }
        }
        zl_conditioner_pump(&cond);
        server_receive(now);
        if (!first_push_us && sbuf.stats.received > 0)
            first_push_us = now;
        if (now >= next_tick) {
            next_tick += cfg->tick_us;
            server_tick(cfg, now, first_push_us, &last_executed, res);
        }
    }
    for (s = 1; s <= newest && s < MAX_SEQ; s++)
        if (!(received[s / 8] & (1u << (s % 8))))
            res->never_received++;
    {
        const zl_conditioner_stats *up = zl_conditioner_get_stats(&cond, ZL_CONDITIONER_SEND);
        res->packets_lost = up->dropped_loss + up->dropped_burst;
    }
    zl_cmdbuf_get_stats(&sbuf, &res->st);
    check_accounting(&sbuf);
    zl_loopnet_close(&ep_c);
    zl_loopnet_close(&ep_s);
}

static double ms(int64_t us) { return (double)us / 1000.0; }

static double mean_wait_ms(const sim_result *r)
{
    return r->waited ? ms((int64_t)(r->wait_us / r->waited)) : 0.0;
}

static double tick_spread_ms(const sim_result *r)
{
    double mean = r->tick_ms_sum / r->ticks;
    double var = r->tick_ms_sumsq / r->ticks - mean * mean;
    return var > 0 ? sqrt(var) : 0.0;
}

/* Sim lengths: shortened on slow ports, never below a few seconds. */
static uint32_t sim_us(uint32_t us)
{
    uint32_t k = (uint32_t)ZL_TEST_ITERATIONS((uint64_t)us);
    return k < 6000000u ? 6000000u : k;
}

static void test_redundancy_recovers_20pct_loss(void)
{
    sim_config cfg;
    sim_result r;
    double loss;
    default_config(&cfg);
    cfg.run_us = sim_us(20000000);
    cfg.up.loss_ppm = 200000;
    cfg.up.jitter_us = 5000;
    cfg.down = cfg.up; /* acks are lost too: more resending */
    run_sim(&cfg, 11, &r);
    loss = (double)r.packets_lost / r.packets_sent;
    zl_test_note("%u packets sent, %u lost (%.1f %%); %u commands, %u lost, %u executed",
                 r.packets_sent, r.packets_lost, 100.0 * loss, r.made, r.st.lost, r.executed);
    ZL_CHECK(loss > 0.14 && loss < 0.26); /* the link really lost a fifth (3 sigma) */
    ZL_CHECK_EQ(r.never_received, 0);
    ZL_CHECK_EQ(r.st.lost, 0);
    ZL_CHECK_EQ(r.executed, r.made); /* every command exactly once ... */
    ZL_CHECK_EQ(r.out_of_order, 0);  /* ... in order ... */
    ZL_CHECK_EQ(r.wrong_content, 0); /* ... as sent */
    ZL_CHECK_EQ(r.st.dropped_ahead + r.st.overflow + r.st.invalid, 0);
    ZL_CHECK(r.st.duplicates > r.made); /* redundancy did the work */
}

static void test_loss_bursts_beyond_window_counted(void)
{
    sim_config cfg;
    sim_result r;
    default_config(&cfg);
    cfg.run_us = sim_us(20000000);
    /* Bursts of about 25 packets lost in a row, entered 1 % of the time:
     * longer than the 16-command window. */
    cfg.up.burst_enter_ppm = 10000;
    cfg.up.burst_exit_ppm = 40000;
    cfg.up.burst_loss_bad_ppm = 1000000;
    cfg.up.burst_loss_good_ppm = 100000;
    run_sim(&cfg, 12, &r);
    zl_test_note("%u of %u packets lost in bursts; %u commands never arrived, %u counted lost",
                 r.packets_lost, r.packets_sent, r.never_received, r.st.lost);
    ZL_CHECK(r.never_received > 0); /* the bursts did outrun the window */
    ZL_CHECK_EQ(r.st.lost, r.never_received);
    ZL_CHECK_EQ(r.out_of_order + r.wrong_content, 0);
    /* Every command that arrived ran, or was counted as shed. */
    ZL_CHECK_EQ(r.executed + r.st.dropped_ahead + r.never_received, r.made);
}

static void test_jitter_buffer_steadies_release(void)
{
    sim_config cfg;
    sim_result still, with, without;
    double s_with, s_without;
    default_config(&cfg);
    cfg.run_us = sim_us(12000000);
    run_sim(&cfg, 13, &still);
    zl_test_note("no jitter: added delay %u us, mean wait %.1f ms, spread %.2f ms/tick",
                 still.delay_added_us, mean_wait_ms(&still),
                 tick_spread_ms(&still));
    ZL_CHECK(still.wait_us / still.waited <= cfg.tick_us); /* no more than a tick */
    ZL_CHECK(still.delay_added_us < 2000u);
    ZL_CHECK_EQ(still.underruns_late, 0);

    cfg.up.jitter_us = 30000;
    run_sim(&cfg, 14, &with);
    cfg.buf.max_target_ms = 0;
    run_sim(&cfg, 14, &without);
    s_with = tick_spread_ms(&with);
    s_without = tick_spread_ms(&without);
    zl_test_note("+-30 ms jitter: spread %.2f ms/tick with the buffer (mean wait %.1f ms, "
                 "jitter %u us, target %u us), %.2f ms/tick without (%u underruns)",
                 s_with, mean_wait_ms(&with), with.st.jitter_us,
                 with.st.target_us, s_without, without.underruns_late);
    ZL_CHECK(s_with < 1.0);
    ZL_CHECK(s_without > 3.0 * s_with);
    ZL_CHECK_EQ(with.underruns_late, 0);
    ZL_CHECK(with.wait_us / with.waited < 100000u); /* bounded delay */
    ZL_CHECK_EQ(with.executed + with.st.depth_cmds, with.made);
    ZL_CHECK_EQ(without.executed + without.st.depth_cmds, without.made);
}

static void test_speed_hack_throttled(void)
{
    sim_config cfg;
    sim_result r;
    uint32_t real_ms;
    default_config(&cfg);
    cfg.run_us = sim_us(10000000);
    cfg.drain_us = 0;
    cfg.claim_q8 = 512; /* claims twice the time that passed */
    run_sim(&cfg, 15, &r);
    real_ms = (cfg.run_us) / 1000u;
    zl_test_note("claimed %u ms in %u ms: ran %u ms, shed %u + %u overflow commands, "
                 "lead at most %.1f ms",
                 (uint32_t)(2u * real_ms), real_ms, (uint32_t)(r.executed_us / 1000u),
                 r.st.dropped_ahead, r.st.overflow, ms(r.max_lead_us));
    ZL_CHECK(r.max_lead_us <= (int64_t)(cfg.buf.budget_ms + ZL_USERCMD_MSEC_MAX) * 1000);
    /* The excess is shed (counted) or still waits; none of it ran. */
    ZL_CHECK(r.st.dropped_ahead + r.st.overflow + r.st.depth_cmds > r.made / 3u);
    ZL_CHECK(r.executed_us / 1000u > real_ms * 9u / 10u); /* still real time */
    ZL_CHECK_EQ(r.out_of_order, 0);
}

static void test_honest_clients_never_throttled(void)
{
    static const uint32_t frame_ms[3] = {8, 16, 33};
    int i;
    for (i = 0; i < 3; i++) {
        sim_config cfg;
        sim_result r;
        default_config(&cfg);
        cfg.run_us = sim_us(12000000);
        cfg.frame_us = frame_ms[i] * 1000u;
        cfg.frames_per_packet = frame_ms[i] < 15 ? 2u : 1u; /* about 64 packets/s at most */
        cfg.up.jitter_us = 10000;
        run_sim(&cfg, 16u + (uint64_t)i, &r);
        zl_test_note("%2u ms commands: %u made, %u run, late underruns %u, shed %u, "
                     "mean wait %.1f ms, spread %.2f ms/tick",
                     frame_ms[i], r.made, r.executed, r.underruns_late, r.st.dropped_ahead,
                     mean_wait_ms(&r), tick_spread_ms(&r));
        ZL_CHECK_EQ(r.executed, r.made);
        ZL_CHECK_EQ(r.st.dropped_ahead + r.st.overflow + r.st.lost, 0);
        ZL_CHECK_EQ(r.underruns_late, 0);
        ZL_CHECK_EQ(r.out_of_order + r.wrong_content, 0);
    }
}

static void test_burst_after_silence_no_gain(void)
{
    sim_config cfg;
    sim_result r;
    default_config(&cfg);
    cfg.run_us = sim_us(8000000);
    cfg.mute_from_us = 4000000;
    cfg.mute_to_us = 4400000; /* 400 ms silent, then everything at once */
    run_sim(&cfg, 17, &r);
    zl_test_note("after 400 ms of silence: %u lost, %u shed, most run in a tick %u ms, "
                 "lead at most %.1f ms",
                 r.st.lost, r.st.dropped_ahead, r.tick_ms_max, ms(r.max_lead_us));
    ZL_CHECK(r.st.lost > 0); /* beyond the window: some never came */
    ZL_CHECK(r.max_lead_us <= (int64_t)(cfg.buf.budget_ms + ZL_USERCMD_MSEC_MAX) * 1000);
    ZL_CHECK(r.tick_ms_max <= cfg.tick_us / 1000u + cfg.buf.budget_ms + 16u);
    ZL_CHECK_EQ(r.executed + r.st.dropped_ahead + r.st.lost + r.st.depth_cmds, r.made);
}

void zl_suite_cmdstream(void)
{
    (void)zl_schema_plan_init(&cmd_plan, &zl_usercmd_schema);
    ZL_RUN(test_round_trip_every_count);
    ZL_RUN(test_empty_run_is_cheap);
    ZL_RUN(test_widening_across_wraps);
    ZL_RUN(test_write_refuses);
    ZL_RUN(test_hostile_truncation_every_length);
    ZL_RUN(test_hostile_random_bytes);
    ZL_RUN(test_push_dedupes_and_counts);
    ZL_RUN(test_push_overflow_counted);
    ZL_RUN(test_pop_respects_max_and_credit);
    ZL_RUN(test_redundancy_recovers_20pct_loss);
    ZL_RUN(test_loss_bursts_beyond_window_counted);
    ZL_RUN(test_jitter_buffer_steadies_release);
    ZL_RUN(test_speed_hack_throttled);
    ZL_RUN(test_honest_clients_never_throttled);
    ZL_RUN(test_burst_after_silence_no_gain);
}
