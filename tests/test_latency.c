/* test_latency.c - correct at any latency: a matrix of round trips, jitter and
 * loss where bots strafe, jump, crouch and shoot each other's heads, checking
 * that entities interpolate and shots agree with lag compensation. */
#include <string.h>

#include "zl_match.h"
#include "zl_test.h"

#define m zl_match_world

/* The matrix. A slow port (Cortex-M3 under emulation) runs a reduced one
 * (runs_here). */
static const uint32_t rtts_ms[] = {0, 50, 150, 300, 500, 800};
static const uint32_t jitters_ms[] = {0, 20, 50};
static const uint32_t losses_ppm[] = {0, 30000, 100000};
#define RTTS (sizeof rtts_ms / sizeof rtts_ms[0])
#define JITTERS (sizeof jitters_ms / sizeof jitters_ms[0])
#define LOSSES (sizeof losses_ppm / sizeof losses_ppm[0])

#define MEASURE_US 5000000u

/* What one scenario measured, with compensation on and off. */
typedef struct scenario {
    uint32_t draws, extrapolated;
    zl_match_tally on, off;
    uint32_t mispredicted, repeats, executed;
    uint32_t refused; /* commands prediction refused: its ring was full */
} scenario;

/* One match (maxunlag_us 0: the server's default): connect, settle, then
 * measure for MEASURE_US. */
static void play(uint32_t rtt_ms, uint32_t jitter_ms, uint32_t loss_ppm, int lag_compensation,
                 uint32_t maxunlag_us, scenario *out)
{
    uint32_t draws0 = 0, extrapolated0 = 0, from;
    zl_match_tally *t = lag_compensation ? &out->on : &out->off;
    zl_match_setup setup;
    int i;
    memset(&setup, 0, sizeof setup);
    setup.rtt_us = rtt_ms * 1000u;
    setup.jitter_us = jitter_ms * 1000u;
    setup.loss_ppm = loss_ppm;
    setup.lag_compensation = lag_compensation;
    setup.maxunlag_us = maxunlag_us;
    setup.style = ZL_MATCH_DUEL;
    setup.firing = 1;
    zl_match_start(&setup);
    /* The handshake takes two round trips, the first snapshot half of one
     * more, and the render time then has the interpolation delay to fill. */
    zl_match_run(1500000u + 3u * rtt_ms * 1000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    for (i = 0; i < ZL_MATCH_BOTS; i++) {
        draws0 += m.client[i].draws;
        extrapolated0 += m.client[i].extrapolated;
    }
    from = m.shots;
    zl_match_run(MEASURE_US);
    zl_match_tally_shots(from, t);
    if (lag_compensation) {
        for (i = 0; i < ZL_MATCH_BOTS; i++) {
            out->draws += m.client[i].draws;
            out->extrapolated += m.client[i].extrapolated;
        }
        out->draws -= draws0;
        out->extrapolated -= extrapolated0;
    }
    for (i = 0; i < ZL_MATCH_BOTS; i++)
        out->refused += zl_predict_get_stats(&m.client[i].predict)->refused_full;
    out->mispredicted += m.mispredicted_moving;
    out->repeats += m.repeats;
    out->executed += m.executed;
    ZL_CHECK_EQ(m.unkept, 0);
}

static double share(uint32_t part, uint32_t whole)
{
    return whole ? 100.0 * part / whole : 0.0;
}

/* 1 when the scenario runs on this port: all of them, or on a slow port
 * 20 ms jitter with 3% loss and the worst corner, at every round trip. */
static int runs_here(size_t j, size_t l)
{
#ifdef ZL_TEST_SLOW
    return (j == 1 && l == 1) || (j == 2 && l == 2);
#else
    (void)j;
    (void)l;
    return 1;
#endif
}

static void test_matrix(void)
{
    static scenario sc[RTTS][JITTERS][LOSSES];
    size_t r, j, l;
    memset(sc, 0, sizeof sc);
    for (r = 0; r < RTTS; r++)
        for (j = 0; j < JITTERS; j++)
            for (l = 0; l < LOSSES; l++) {
                scenario *s = &sc[r][j][l];
                if (!runs_here(j, l))
                    continue;
                play(rtts_ms[r], jitters_ms[j], losses_ppm[l], 1, 0, s);
                play(rtts_ms[r], jitters_ms[j], losses_ppm[l], 0, 0, s);
                zl_test_note("rtt %3u ms, jitter %2u ms, loss %2u%%: extrapolated %5.2f%% of %u "
                             "draws; agree %6.2f%% of %u judged (%u hits, %u extrapolated, %u "
                             "clamped), off %6.2f%% of %u",
                             rtts_ms[r], jitters_ms[j], losses_ppm[l] / 10000u,
                             share(s->extrapolated, s->draws), s->draws,
                             share(s->on.agree, s->on.judged), s->on.judged, s->on.hits,
                             s->on.extrapolated, s->on.clamped, share(s->off.agree, s->off.judged),
                             s->off.judged);
                /* It simulated: shots were judged, and some hit. */
                ZL_CHECK(s->on.judged > 40u && s->off.judged > 40u);
                ZL_CHECK(s->on.hits * 20u > s->on.judged);
                /* Prediction stays exact, commands run once. */
                ZL_CHECK_EQ(s->mispredicted, 0);
                ZL_CHECK_EQ(s->repeats, 0);
                ZL_CHECK_EQ(s->refused, 0);
                ZL_CHECK(s->executed > 1000u);
                /* Even at 50 ms of jitter and 10% loss, except where the
                 * view is older than the server's 1 s maxunlag: 800 ms of
                 * round trip, up to 100 ms of jitter on it, the input
                 * buffer and 100 ms of interpolation. There every
                 * disagreement is a clamp (test_beyond_maxunlag). */
                if (rtts_ms[r] + 2u * jitters_ms[j] + 100u < 1000u)
                    ZL_CHECK(s->on.agree * 100u >= s->on.judged * 97u);
                else
                    ZL_CHECK_EQ(s->on.judged - s->on.agree, s->on.clamped);
            }
    /* Per round trip, over jitter <= 20 ms and loss <= 3%. */
    for (r = 0; r < RTTS; r++) {
        uint32_t draws = 0, extrapolated = 0, judged = 0, agree = 0, judged_off = 0,
                 agree_off = 0;
        for (j = 0; j < 2; j++)
            for (l = 0; l < 2; l++) {
                const scenario *s = &sc[r][j][l];
                draws += s->draws;
                extrapolated += s->extrapolated;
                judged += s->on.judged;
                agree += s->on.agree;
                judged_off += s->off.judged;
                agree_off += s->off.agree;
            }
        zl_test_note("rtt %3u ms, jitter <= 20 ms, loss <= 3%%: extrapolated %.2f%%, agree "
                     "%.2f%% with compensation, %.2f%% without",
                     rtts_ms[r], share(extrapolated, draws), share(agree, judged),
                     share(agree_off, judged_off));
        ZL_CHECK(draws > 0u);
        ZL_CHECK(extrapolated * 100u <= draws);
        ZL_CHECK(agree * 1000u >= judged * 995u);
        if (rtts_ms[r] >= 150u)
            ZL_CHECK(share(agree, judged) >= share(agree_off, judged_off) + 20.0);
    }
}

/* The corner the default maxunlag cannot reach, with a server that rewinds
 * up to 1.25 s: every shot agrees again. */
static void test_beyond_maxunlag(void)
{
    scenario s;
    memset(&s, 0, sizeof s);
    play(800u, 50u, 100000u, 1, 1250000u, &s);
    zl_test_note("rtt 800 ms, jitter 50 ms, loss 10%%, maxunlag 1.25 s: agree %.2f%% of %u "
                 "judged (%u clamped)",
                 share(s.on.agree, s.on.judged), s.on.judged, s.on.clamped);
    ZL_CHECK(s.on.judged > 40u);
    ZL_CHECK_EQ(s.on.clamped, 0);
    ZL_CHECK(s.on.agree * 1000u >= s.on.judged * 995u);
}

void zl_suite_latency(void)
{
    ZL_RUN(test_matrix);
    ZL_RUN(test_beyond_maxunlag);
}
