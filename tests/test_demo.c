/* test_demo.c - the demo's bookkeeping: record lines round trip, the tick
 * cost histogram, option parsing, the per-shot join behind "agree", and the
 * impact message. */
#include <string.h>

#include "demo_impact.h"
#include "demo_match.h"
#include "demo_options.h"
#include "demo_stopwatch.h"
#include "zl_test.h"

static demo_match m;

static void test_record_round_trip(void)
{
    demo_rec_verdict v, back;
    uint32_t raw[DEMO_REC_MAX_BYTES / 4];
    char line[DEMO_REC_MAX_LINE];
    size_t n;
    memset(&v, 0, sizeof v);
    v.shooter = 3;
    v.sequence = 0xFFFFFFF0u; /* above INT32_MAX: travels as a negative number */
    v.target = -1;
    v.eye = zl_vec3_make(ZL_FX_INT(-1056), 12345, ZL_FX_MIN);
    v.current.max.z = ZL_FX_MAX;
    n = demo_record_format(line, sizeof line, DEMO_REC_VERDICT, &v);
    ZL_CHECK(n > 0 && n < sizeof line && line[n - 1] == '\n');
    ZL_CHECK_EQ(demo_record_parse(line, raw), DEMO_REC_VERDICT);
    memcpy(&back, raw, sizeof back);
    ZL_CHECK(memcmp(&back, &v, sizeof v) == 0);
}

static void test_record_parse_refuses(void)
{
    uint32_t raw[DEMO_REC_MAX_BYTES / 4];
    ZL_CHECK_EQ(demo_record_parse("hello 5", raw), DEMO_REC_HELLO);
    ZL_CHECK_EQ((int32_t)raw[0], 5);
    ZL_CHECK_EQ(demo_record_parse("hello 5\r\n", raw), DEMO_REC_HELLO);
    ZL_CHECK_EQ(demo_record_parse("hello", raw), -1);        /* a number short */
    ZL_CHECK_EQ(demo_record_parse("hello 5 6", raw), -1);    /* one too many */
    ZL_CHECK_EQ(demo_record_parse("hello x", raw), -1);
    ZL_CHECK_EQ(demo_record_parse("hello 4294967296", raw), -1); /* not 32 bits */
    ZL_CHECK_EQ(demo_record_parse("helloo 5", raw), -1);
    ZL_CHECK_EQ(demo_record_parse("zl_client: connected, slot 3", raw), -1);
    ZL_CHECK_EQ(demo_record_parse("", raw), -1);
}

static void test_stopwatch_quantiles(void)
{
    static demo_stopwatch w;
    uint32_t i;
    demo_stopwatch_reset(&w);
    ZL_CHECK_EQ(demo_stopwatch_quantile(&w, 500), 0);
    /* 1..100 microseconds, once each, in nanoseconds. */
    for (i = 1; i <= 100; i++)
        demo_stopwatch_add(&w, i * 1000u);
    demo_stopwatch_add(&w, 5000000u); /* beyond the buckets: only the max knows */
    ZL_CHECK_EQ(w.count, 101);
    /* The 51st sample is 51 us: its 100 ns bucket's middle. */
    ZL_CHECK_EQ(demo_stopwatch_quantile(&w, 500), 51050);
    ZL_CHECK_EQ(demo_stopwatch_quantile(&w, 990), 100050);
    ZL_CHECK_EQ(demo_stopwatch_quantile(&w, 1000), 5000000);
    ZL_CHECK_EQ(w.max, 5000000);
}

#ifndef ZL_TEST_NO_HEAP /* strtod may allocate in a bare-metal C library */
static void test_options(void)
{
    demo_options o;
    char a0[] = "zl_client", a1[] = "--fakeloss", a2[] = "2.5", a3[] = "--bot",
         a4[] = "--updaterate=32", a5[] = "--address", a6[] = "[::1]:27016";
    char b1[] = "--port", b2[] = "70000", c1[] = "--tickrate", c2[] = "--bogus";
    char *good[] = {a0, a1, a2, a3, a4, a5, a6};
    char *bad_range[] = {a0, b1, b2};
    char *wrong_program[] = {a0, c1, b2};
    char *unknown[] = {a0, c2};
    char *missing[] = {a0, a1};
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_CLIENT, 7, good), 0);
    ZL_CHECK_EQ(o.fakeloss_ppm, 25000);
    ZL_CHECK_EQ(o.bot, 1);
    ZL_CHECK_EQ(o.updaterate, 32);
    ZL_CHECK(strcmp(o.address, "[::1]:27016") == 0);
    ZL_CHECK_EQ(o.cmdrate, 64); /* untouched: the default */
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_CLIENT, 3, bad_range), -1);
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_CLIENT, 3, wrong_program), -1);
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_SERVER, 2, unknown), -1);
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_CLIENT, 2, missing), -1);
    ZL_CHECK_EQ(o.fakeburst, 0); /* bursts and spikes are off unless asked */
    ZL_CHECK_EQ(o.fakespike_ms, 0);
}

/* zl_window takes the client's options and its own; the others refuse its
 * own, and it refuses the bot's. */
static void test_options_window(void)
{
    demo_options o;
    char a0[] = "zl_window", a1[] = "--script", a2[] = "w:800,right:300,_:100",
         a3[] = "--screenshot", a4[] = "shot.bmp", a5[] = "--fakelag", a6[] = "150",
         b1[] = "--bot";
    char *good[] = {a0, a1, a2, a3, a4, a5, a6};
    char *script[] = {a0, a1, a2};
    char *bot[] = {a0, b1};
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_WINDOW, 7, good), 0);
    ZL_CHECK(strcmp(o.script, "w:800,right:300,_:100") == 0);
    ZL_CHECK(strcmp(o.screenshot, "shot.bmp") == 0);
    ZL_CHECK_EQ(o.fakelag_ms, 150);
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_CLIENT, 3, script), -1);
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_SERVER, 3, script), -1);
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_WINDOW, 2, bot), -1);
}

/* Bursts are counted in datagrams: one must fit between two of them, at the
 * lower of the two packet rates. */
static void test_options_stalls(void)
{
    demo_options o;
    char a0[] = "zl_demo", a1[] = "--fakeburst=20", a2[] = "--fakespike", a3[] = "500",
         a4[] = "--cmdrate=10", a5[] = "--fakespike=5000";
    char *good[] = {a0, a1, a2, a3};
    char *too_long[] = {a0, a1, a4};
    char *spike_too_long[] = {a0, a5};
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_LAUNCHER, 4, good), 0);
    ZL_CHECK_EQ(o.fakeburst, 20);
    ZL_CHECK_EQ(o.fakespike_ms, 500);
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_SERVER, 4, good), 0);
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_CLIENT, 4, good), 0);
    /* 10 command packets a second: 20 in 2 s, no room for a burst of 20. */
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_CLIENT, 3, too_long), -1);
    /* A spike must end before the next one starts. */
    ZL_CHECK_EQ(demo_options_load(&o, DEMO_FOR_LAUNCHER, 2, spike_too_long), -1);
}
#endif

/* A box one player wide at x (units). */
static zl_box box_at(int32_t x)
{
    zl_box b;
    b.min = zl_vec3_make(ZL_FX_INT(x - 16), ZL_FX_INT(-16), 0);
    b.max = zl_vec3_make(ZL_FX_INT(x + 16), ZL_FX_INT(16), ZL_FX_INT(72));
    return b;
}

/* Client sight and server verdict of one shot of slot 0, command seq;
 * as_claimed: the server traced at the pose the command claims. */
static void shot(uint32_t seq, int32_t seen, int32_t judged, int as_claimed, int guessed,
                 int same_aim)
{
    demo_rec_shot *s = &m.shot[m.shots];
    demo_rec_verdict *v = &m.verdict[m.verdicts];
    memset(s, 0, sizeof *s);
    memset(v, 0, sizeof *v);
    m.shot_owner[m.shots++] = 0;
    s->sequence = v->sequence = seq;
    s->target = seen;
    s->extrapolated = (uint32_t)guessed;
    s->dir = v->dir = zl_vec3_make(ZL_FX_ONE, 0, 0);
    if (!same_aim)
        v->dir.y = 1;
    v->target = judged;
    v->rebuilt = (uint32_t)as_claimed;
    if (judged >= 0) {
        v->rewound = box_at(100);
        v->current = box_at(160);
    }
    if (judged < -1) { /* no verdict at all */
        m.verdicts--;
        memset(v, 0, sizeof *v);
    }
    m.verdicts++;
}

static void test_tally_judges_each_shot(void)
{
    demo_setup setup;
    demo_tally t;
    memset(&setup, 0, sizeof setup);
    setup.bots = 1;
    demo_match_init(&m, &setup, 0);
    m.bot[0].slot = 0;
    shot(1, 2, 2, 1, 0, 1);   /* both hit slot 2 */
    shot(2, -1, -1, 1, 0, 1); /* both missed */
    shot(3, 2, -1, 1, 0, 0);  /* the server ran another shot (mispredicted aim) */
    shot(4, 2, -1, 0, 1, 1);  /* drawn by extrapolation, traced at another time */
    shot(5, 2, -1, 1, 0, 1);  /* traced as claimed, yet drawn otherwise (respawn) */
    shot(6, 2, -1, 0, 0, 1);  /* the server traced another time than claimed */
    shot(7, 1, -9, 1, 0, 1);  /* never judged: the shooter was dead there */
    shot(8, 1, -9, 1, 0, 1);  /* never judged, no reason known */
    m.deadfire[m.deadfires].shooter = 0;
    m.deadfire[m.deadfires++].sequence = 7;
    /* A verdict without a sight, on a target already dead in the present. */
    memset(&m.verdict[m.verdicts], 0, sizeof m.verdict[0]);
    m.verdict[m.verdicts].sequence = 99;
    m.verdict[m.verdicts].target = 3;
    m.verdict[m.verdicts].rebuilt = 1;
    m.verdict[m.verdicts++].rewound = box_at(0);
    demo_match_tally(&m, 0, &t);
    ZL_CHECK_EQ(t.shots, 8);
    ZL_CHECK_EQ(t.client_hits, 7);
    ZL_CHECK_EQ(t.judged, 6);
    ZL_CHECK_EQ(t.agree, 2);
    ZL_CHECK_EQ(t.judged_hits, 5);
    ZL_CHECK_EQ(t.confirmed, 1);
    ZL_CHECK_EQ(t.other_shot, 1);
    ZL_CHECK_EQ(t.guessed, 1);
    ZL_CHECK_EQ(t.drawn_ahead, 1);
    ZL_CHECK_EQ(t.other_pose, 1);
    ZL_CHECK_EQ(t.shooter_dead, 1);
    ZL_CHECK_EQ(t.unjudged, 1);
    ZL_CHECK_EQ(t.server_hits, 2);
    ZL_CHECK_EQ(t.rebuilt, 2);
    ZL_CHECK_EQ(t.hit_dead, 1);
    ZL_CHECK_EQ(t.server_only, 1);
    /* Another slot's tally sees none of it. */
    demo_match_tally(&m, 5, &t);
    ZL_CHECK_EQ(t.shots + t.judged + t.server_hits, 0);
}

/* The impact message round trips; every other length, kind or slot is
 * refused without touching the output, and any 54 bytes of the right kind
 * and slot read back as exactly those bytes. */
static void test_impact_message(void)
{
    uint8_t msg[DEMO_MSG_IMPACT_BYTES + 1], again[DEMO_MSG_IMPACT_BYTES];
    demo_impact in, out, untouched;
    uint32_t seed = 0x1234567u;
    size_t len, k;
    int round;
    memset(&in, 0, sizeof in);
    in.target = ZL_MAX_CLIENTS - 1;
    in.sequence = 0xDEADBEEFu;
    in.rewound.min = zl_vec3_make(ZL_FX_INT(-100), ZL_FX_INT(20), 0);
    in.rewound.max = zl_vec3_make(ZL_FX_INT(-68), ZL_FX_INT(52), ZL_FX_INT(72));
    in.current.min = zl_vec3_make(ZL_FX_INT(-90), ZL_FX_INT(25), -1);
    in.current.max = zl_vec3_make(ZL_FX_INT(-58), ZL_FX_INT(57), ZL_FX_INT(36));
    demo_impact_write(msg, &in);
    ZL_CHECK_EQ(demo_impact_read(msg, DEMO_MSG_IMPACT_BYTES, &out), 1);
    ZL_CHECK(memcmp(&in, &out, sizeof in) == 0);
    memset(&untouched, 0xA5, sizeof untouched);
    for (len = 0; len <= DEMO_MSG_IMPACT_BYTES + 1u; len++) {
        out = untouched;
        if (len != DEMO_MSG_IMPACT_BYTES)
            ZL_CHECK_EQ(demo_impact_read(msg, len, &out), 0);
        ZL_CHECK(len == DEMO_MSG_IMPACT_BYTES || memcmp(&out, &untouched, sizeof out) == 0);
    }
    msg[1] = ZL_MAX_CLIENTS;
    ZL_CHECK_EQ(demo_impact_read(msg, DEMO_MSG_IMPACT_BYTES, &out), 0);
    msg[1] = 0;
    msg[0] = 'K';
    ZL_CHECK_EQ(demo_impact_read(msg, DEMO_MSG_IMPACT_BYTES, &out), 0);
    for (round = 0; round < 200; round++) {
        for (k = 0; k < DEMO_MSG_IMPACT_BYTES; k++) {
            seed = seed * 1103515245u + 12345u;
            msg[k] = (uint8_t)(seed >> 16);
        }
        msg[0] = DEMO_MSG_IMPACT;
        msg[1] = (uint8_t)(msg[1] % ZL_MAX_CLIENTS);
        ZL_CHECK_EQ(demo_impact_read(msg, DEMO_MSG_IMPACT_BYTES, &out), 1);
        demo_impact_write(again, &out);
        ZL_CHECK(memcmp(again, msg, DEMO_MSG_IMPACT_BYTES) == 0);
    }
}

void zl_suite_demo(void)
{
    ZL_RUN(test_record_round_trip);
    ZL_RUN(test_record_parse_refuses);
    ZL_RUN(test_stopwatch_quantiles);
#ifndef ZL_TEST_NO_HEAP
    ZL_RUN(test_options);
    ZL_RUN(test_options_stalls);
    ZL_RUN(test_options_window);
#endif
    ZL_RUN(test_tally_judges_each_shot);
    ZL_RUN(test_impact_message);
}
