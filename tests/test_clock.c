/* test_clock.c - the render timeline: the snapshot clock's convergence through
 * a jittery link, monotonic and rate-bounded steering, snaps, changing sample
 * rates, and the adaptive interpolation delay. */
#include <math.h>
#include <string.h>

#include "zl_bytes.h"
#include "zl_clock.h"
#include "zl_conditioner.h"
#include "zl_loopnet.h"
#include "zl_test.h"

#define START_US 1000000u
#define STEP_US 500u

/* The server's clock: an offset and a rate error against ours, and a jump
 * from a given local time (a restart or a clock step). */
typedef struct server_clock {
    uint64_t base_us;   /* its reading at START_US */
    int32_t drift_ppm;  /* how much faster it runs */
    uint64_t jump_at_us;
    int64_t jump_us;
} server_clock;

static uint64_t server_now(const server_clock *s, uint64_t local_us)
{
    int64_t el = (int64_t)(local_us - START_US);
    int64_t t = (int64_t)s->base_us + el + el * s->drift_ppm / 1000000;
    if (s->jump_at_us && local_us >= s->jump_at_us)
        t += s->jump_us;
    return (uint64_t)t;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void test_first_sample_sets_clock(void)
{
    zl_clock c;
    zl_clock_stats st;
    zl_clock_init(&c, NULL);
    ZL_CHECK_EQ(zl_clock_snapshot_time(&c, 777), 777); /* no sample: local time */
    ZL_CHECK_EQ(zl_clock_delay(&c), 0);
    zl_clock_observe(&c, 5000000000u, START_US);
    ZL_CHECK_EQ(zl_clock_snapshot_time(&c, START_US), 5000000000u);
    ZL_CHECK_EQ(zl_clock_snapshot_time(&c, START_US + 16000), 5000016000u);
    /* A sample that agrees changes nothing. */
    zl_clock_observe(&c, 5000000000u + 32000u, START_US + 32000);
    ZL_CHECK_EQ(zl_clock_snapshot_time(&c, START_US + 48000), 5000048000u);
    /* The first render time starts at the floor, or at what the arrivals
     * need when that is more (32 ms apart, plus the 1 ms margin). */
    ZL_CHECK_EQ(zl_clock_render_time(&c, START_US + 48000, 100000), 4999948000u);
    ZL_CHECK_EQ(zl_clock_delay(&c), 100000);
    zl_clock_init(&c, NULL);
    zl_clock_observe(&c, 5000000000u, START_US);
    zl_clock_observe(&c, 5000032000u, START_US + 32000);
    ZL_CHECK_EQ(zl_clock_render_time(&c, START_US + 32000, 0), 5000032000u - 33000u);
    zl_clock_get_stats(&c, &st);
    ZL_CHECK_EQ(st.samples, 2);
    ZL_CHECK_EQ(st.snaps, 0);
    ZL_CHECK_EQ(st.error_us, 0);
    /* Server time never goes below zero, whatever the first stamp says. */
    zl_clock_init(&c, NULL);
    zl_clock_observe(&c, 0, 1000000000u);
    ZL_CHECK_EQ(zl_clock_snapshot_time(&c, 1000000000u), 0);
    ZL_CHECK_EQ(zl_clock_snapshot_time(&c, 1000000500u), 500);
    ZL_CHECK_EQ(zl_clock_render_time(&c, 1000000500u, 100000), 0);
}

/* Snapshots stamped by the server travel through the conditioner (the
 * client's receive direction); the client feeds each to its clock. Measured
 * every step from 3 s into each phase: the error of the snapshot clock
 * against the true server clock less the mean delay seen, and whether the
 * render time (floor `floor_us`) ran past the newest snapshot received. */
typedef struct phase {
    uint32_t until_us;   /* local time (from START_US) the phase ends */
    uint32_t interval_us; /* between snapshots */
    uint32_t jitter_us;  /* the link's jitter during the phase */
} phase;

static zl_loopnet net;
static zl_loopnet_endpoint ep_c, ep_s;
static zl_platform raw_c, raw_s, hal_c;
static zl_conditioner cond;

typedef struct link_result {
    int64_t max_err_us[4]; /* per phase, after its first 3 s */
    uint32_t steps[4], past_newest[4]; /* per phase, after its first 3 s */
    uint32_t delay_end_us[4]; /* the delay in use at the phase's end */
    double mean_abs_err_us;
    uint32_t snaps;
    double mean_delay_us;
    uint32_t backwards;   /* snapshot clock or render time ran backwards */
} link_result;

static void run_link(const server_clock *srv, const zl_conditioner_settings *link,
                     const phase *phases, int nphases, uint32_t floor_us, uint64_t seed,
                     link_result *res)
{
    zl_conditioner_settings down = *link;
    zl_platform clock;
    zl_clock c;
    zl_clock_stats st;
    zl_addr addr_c = zl_addr_ipv4(10, 0, 0, 1, 1000), addr_s = zl_addr_ipv4(10, 0, 0, 2, 2000);
    uint64_t now, next_snap = START_US, last_shown = 0, phase_start = START_US;
    uint64_t newest = 0, last_render = 0;
    double abs_sum = 0;
    uint32_t abs_n = 0;
    int p = 0;
    memset(res, 0, sizeof *res);
    zl_test_fake_platform(&clock);
    zl_test_time_us = START_US;
    zl_loopnet_init(&net, &clock);
    zl_loopnet_open(&net, &ep_c, &addr_c, &raw_c);
    zl_loopnet_open(&net, &ep_s, &addr_s, &raw_s);
    zl_conditioner_init(&cond, &raw_c, seed, &hal_c);
    down.jitter_us = phases[0].jitter_us;
    ZL_CHECK_EQ(zl_conditioner_configure(&cond, ZL_CONDITIONER_RECEIVE, &down), ZL_OK);
    zl_clock_init(&c, NULL);
    for (now = START_US; p < nphases; now += STEP_US) {
        uint8_t pkt[8];
        zl_addr from;
        uint64_t shown, render;
        const zl_conditioner_stats *ls = zl_conditioner_get_stats(&cond, ZL_CONDITIONER_RECEIVE);
        zl_test_time_us = now;
        if (now >= START_US + phases[p].until_us) {
            res->delay_end_us[p] = zl_clock_delay(&c);
            p++;
            phase_start = now;
            if (p == nphases)
                break;
            down.jitter_us = phases[p].jitter_us;
            ZL_CHECK_EQ(zl_conditioner_configure(&cond, ZL_CONDITIONER_RECEIVE, &down), ZL_OK);
        }
        if (now >= next_snap) {
            next_snap += phases[p].interval_us;
            put_le64(pkt, server_now(srv, now));
            ZL_CHECK_EQ(raw_s.send(raw_s.ctx, &addr_c, pkt, sizeof pkt), ZL_OK);
        }
        while (hal_c.receive(hal_c.ctx, &from, pkt, sizeof pkt) == 8) {
            uint64_t stamp = zl_get_le(pkt, 8);
            zl_clock_observe(&c, stamp, now);
            newest = stamp > newest ? stamp : newest;
        }
        shown = zl_clock_snapshot_time(&c, now);
        render = zl_clock_render_time(&c, now, floor_us);
        if (shown < last_shown || render < last_render)
            res->backwards++;
        last_shown = shown;
        last_render = render;
        if (now >= phase_start + 3000000u && abs_n < 0xFFFFFFF0u) {
            uint64_t mean_delay = ls->delay_total_us / (ls->delivered ? ls->delivered : 1);
            int64_t err = (int64_t)shown - (int64_t)(server_now(srv, now) - mean_delay);
            res->steps[p]++;
            res->past_newest[p] += render > newest;
            int64_t a = err < 0 ? -err : err;
            if (a > res->max_err_us[p])
                res->max_err_us[p] = a;
            abs_sum += (double)a;
            abs_n++;
        }
    }
    zl_clock_get_stats(&c, &st);
    res->snaps = st.snaps;
    res->mean_abs_err_us = abs_n ? abs_sum / abs_n : 0;
    {
        const zl_conditioner_stats *ls = zl_conditioner_get_stats(&cond, ZL_CONDITIONER_RECEIVE);
        res->mean_delay_us = (double)ls->delay_total_us / ls->delivered;
    }
    zl_loopnet_close(&ep_c);
    zl_loopnet_close(&ep_s);
}

static uint32_t phase_us(uint32_t us)
{
    uint32_t k = (uint32_t)ZL_TEST_ITERATIONS((uint64_t)us);
    return k < 6000000u ? 6000000u : k;
}

static void test_converges_under_jitter(void)
{
    server_clock srv = {123456789012u, 200, 0, 0}; /* and 200 ppm fast */
    zl_conditioner_settings down;
    phase ph[1];
    link_result r;
    memset(&down, 0, sizeof down);
    down.enabled = 1;
    down.latency_us = 100000;
    ph[0].until_us = phase_us(30000000);
    ph[0].interval_us = 15625;
    ph[0].jitter_us = 20000;
    run_link(&srv, &down, ph, 1, 100000, 21, &r);
    zl_test_note("100 ms +- 20 ms (mean delay seen %.1f ms), 64 snapshots/s, +200 ppm: "
                 "error after 3 s at most %.2f ms, mean %.2f ms; render time past the newest "
                 "snapshot in %u of %u steps",
                 r.mean_delay_us / 1000.0, (double)r.max_err_us[0] / 1000.0,
                 r.mean_abs_err_us / 1000.0, r.past_newest[0], r.steps[0]);
    ZL_CHECK(r.mean_delay_us > 95000.0 && r.mean_delay_us < 125000.0); /* it was simulated */
    ZL_CHECK(r.max_err_us[0] < 5000);
    ZL_CHECK_EQ(r.snaps, 0);
    ZL_CHECK_EQ(r.backwards, 0);
    ZL_CHECK(r.steps[0] > 1000u);
    ZL_CHECK_EQ(r.past_newest[0], 0);
    ZL_CHECK_EQ(r.delay_end_us[0], 100000); /* the floor covers this link */
}

static void test_sample_rate_changes(void)
{
    server_clock srv = {5000000u, -150, 0, 0};
    zl_conditioner_settings down;
    phase ph[3];
    link_result r;
    memset(&down, 0, sizeof down);
    down.enabled = 1;
    down.latency_us = 60000;
    down.loss_ppm = 50000;
    ph[0].until_us = phase_us(10000000);
    ph[0].interval_us = 50000; /* 20 Hz */
    ph[1].until_us = ph[0].until_us + phase_us(10000000);
    ph[1].interval_us = 7812; /* 128 Hz */
    ph[2].until_us = ph[1].until_us + phase_us(10000000);
    ph[2].interval_us = 100000; /* 10 Hz */
    ph[0].jitter_us = ph[1].jitter_us = ph[2].jitter_us = 15000;
    run_link(&srv, &down, ph, 3, 100000, 22, &r);
    zl_test_note("20 Hz, 128 Hz, 10 Hz snapshots: worst error %.2f, %.2f, %.2f ms; "
                 "delay in use %.1f, %.1f, %.1f ms; at 10 Hz past the newest in %u of %u steps",
                 (double)r.max_err_us[0] / 1000.0, (double)r.max_err_us[1] / 1000.0,
                 (double)r.max_err_us[2] / 1000.0, r.delay_end_us[0] / 1000.0,
                 r.delay_end_us[1] / 1000.0, r.delay_end_us[2] / 1000.0, r.past_newest[2],
                 r.steps[2]);
    ZL_CHECK(r.max_err_us[0] < 6000);
    ZL_CHECK(r.max_err_us[1] < 4000);
    ZL_CHECK(r.max_err_us[2] < 8000);
    ZL_CHECK_EQ(r.snaps + r.backwards, 0);
    /* 10 Hz with 5% loss needs more than the 100 ms floor: a lost snapshot
     * leaves 200 ms between two. */
    ZL_CHECK(r.delay_end_us[2] > 150000u);
    ZL_CHECK(r.past_newest[2] * 50u < r.steps[2]);
}

/* The adaptive delay on a link that turns bad and then quiet again, with no
 * floor: it follows what the arrivals need, grows fast, shrinks slowly, and
 * the render time rarely runs past the newest snapshot. */
static void test_adaptive_delay(void)
{
    server_clock srv = {777000000u, 50, 0, 0};
    zl_conditioner_settings down;
    phase ph[3];
    link_result r;
    memset(&down, 0, sizeof down);
    down.enabled = 1;
    down.latency_us = 150000;
    down.loss_ppm = 30000;
    ph[0].until_us = phase_us(10000000);
    ph[1].until_us = ph[0].until_us + phase_us(10000000);
    ph[2].until_us = ph[1].until_us + 4000000u;
    ph[0].interval_us = ph[1].interval_us = ph[2].interval_us = 15625;
    ph[0].jitter_us = 2000;
    ph[1].jitter_us = 50000;
    ph[2].jitter_us = 2000;
    run_link(&srv, &down, ph, 3, 0, 24, &r);
    zl_test_note("no floor, 64 snapshots/s, 3%% loss: +-2 ms jitter %.1f ms of delay (past the "
                 "newest %u of %u), +-50 ms %.1f ms (%u of %u), 4 s after the jitter stops "
                 "%.1f ms",
                 r.delay_end_us[0] / 1000.0, r.past_newest[0], r.steps[0],
                 r.delay_end_us[1] / 1000.0, r.past_newest[1], r.steps[1],
                 r.delay_end_us[2] / 1000.0);
    ZL_CHECK_EQ(r.snaps + r.backwards, 0);
    /* Quiet: about two snapshot intervals (a lost one bridged). */
    ZL_CHECK(r.delay_end_us[0] > 15625u && r.delay_end_us[0] < 60000u);
    ZL_CHECK(r.past_newest[0] * 100u <= r.steps[0]);
    /* 50 ms of jitter each side (a datagram never overtakes the one before
     * it, so the late tail is shorter): the delay covers it. */
    ZL_CHECK(r.delay_end_us[1] > r.delay_end_us[0] + 20000u && r.delay_end_us[1] < 250000u);
    ZL_CHECK(r.past_newest[1] * 100u <= r.steps[1]);
    /* It shrinks slowly: 1% of 4 s is 40 ms at most. */
    ZL_CHECK(r.delay_end_us[2] + 41000u >= r.delay_end_us[1]);
    ZL_CHECK(r.delay_end_us[2] < r.delay_end_us[1]);
}

/* With adaptive off the delay is the floor, and a new floor is slewed to. */
static void test_fixed_delay_slews_to_new_floor(void)
{
    server_clock srv = {1000000000u, 0, 0, 0};
    zl_clock_settings s;
    zl_clock c;
    uint64_t t, prev = 0, render;
    int backwards = 0;
    zl_clock_settings_default(&s);
    s.adaptive = 0;
    zl_clock_init(&c, &s);
    for (t = START_US; t < START_US + 1000000u; t += 15625) {
        zl_clock_observe(&c, server_now(&srv, t) - 300000u, t); /* 300 ms late */
        render = zl_clock_render_time(&c, t, 20000);
        backwards += render < prev;
        prev = render;
    }
    ZL_CHECK_EQ(zl_clock_delay(&c), 20000);
    /* The floor goes to 120 ms: 10% of local time, so 1 s to get there. */
    for (; t < START_US + 1500000u; t += 15625) {
        zl_clock_observe(&c, server_now(&srv, t) - 300000u, t);
        render = zl_clock_render_time(&c, t, 120000);
        backwards += render < prev;
        prev = render;
    }
    ZL_CHECK(zl_clock_delay(&c) > 60000u && zl_clock_delay(&c) < 80000u);
    for (; t < START_US + 2500000u; t += 15625) {
        zl_clock_observe(&c, server_now(&srv, t) - 300000u, t);
        render = zl_clock_render_time(&c, t, 120000);
        backwards += render < prev;
        prev = render;
    }
    ZL_CHECK_EQ(zl_clock_delay(&c), 120000);
    ZL_CHECK_EQ(backwards, 0);
}

/* ---- Direct sample streams (no link): the steering's guarantees ---- */

static void test_monotonic_and_rate_bounded(void)
{
    zl_test_rng rng;
    zl_clock c;
    zl_clock_stats st;
    zl_clock_settings s;
    uint64_t now = START_US, prev_now, prev, t, next_obs = START_US;
    uint64_t srv_base = 987654321u;
    uint64_t prev_render, render;
    int i, n = ZL_TEST_ITERATIONS(400000), bad_order = 0, bad_rate = 0;
    int64_t worst_rate_ppm = 0;
    zl_test_rng_seed(&rng, 23);
    zl_clock_settings_default(&s);
    zl_clock_init(&c, &s);
    zl_clock_observe(&c, srv_base, now);
    prev = zl_clock_snapshot_time(&c, now);
    prev_render = zl_clock_render_time(&c, now, 100000);
    prev_now = now;
    for (i = 0; i < n; i++) {
        /* Queries at random moments, the same moment repeated sometimes. */
        now += (uint64_t)zl_test_rng_range(&rng, 0, 3) * (uint64_t)zl_test_rng_range(&rng, 0, 4000);
        while (next_obs <= now) {
            /* Samples with +-50 ms of delay noise, a late outlier now and
             * then, and a stamp that moves by up to 150 ms at times (below
             * the snap threshold). */
            int64_t noise = zl_test_rng_range(&rng, -50000, 50000);
            if (zl_test_rng_range(&rng, 0, 99) == 0)
                noise -= 200000;
            if (zl_test_rng_range(&rng, 0, 1999) == 0)
                srv_base += (uint64_t)zl_test_rng_range(&rng, 0, 150000);
            zl_clock_observe(&c, (uint64_t)((int64_t)(srv_base + (next_obs - START_US)) + noise),
                             next_obs);
            next_obs += 15625;
        }
        t = zl_clock_snapshot_time(&c, now);
        /* The render time, its floor wandering, never runs backwards. */
        render = zl_clock_render_time(&c, now, (uint32_t)(i / 1000 % 3) * 60000u);
        if (t < prev || render < prev_render)
            bad_order++;
        prev_render = render;
        if (now > prev_now) {
            /* Rate against local time: within the slew bound (1 us of
             * rounding allowed). */
            int64_t d = (int64_t)(t - prev) - (int64_t)(now - prev_now);
            int64_t bound = (int64_t)(now - prev_now) * s.max_slew_ppm / 1000000 + 1;
            int64_t ppm = d * 1000000 / (int64_t)(now - prev_now);
            if (d > bound || d < -bound)
                bad_rate++;
            if (now - prev_now >= 1000u && (ppm < 0 ? -ppm : ppm) > worst_rate_ppm)
                worst_rate_ppm = ppm < 0 ? -ppm : ppm;
        }
        prev = t;
        prev_now = now;
    }
    zl_clock_get_stats(&c, &st);
    zl_test_note("%d queries over %.0f s: steepest rate change %lld ppm, jitter seen %u us",
                 n, (double)(now - START_US) / 1e6, (long long)worst_rate_ppm, st.jitter_us);
    ZL_CHECK_EQ(st.snaps, 0); /* so the whole run is one monotonic stretch */
    ZL_CHECK_EQ(bad_order, 0);
    ZL_CHECK_EQ(bad_rate, 0);
    ZL_CHECK(worst_rate_ppm > (int64_t)s.max_slew_ppm / 2); /* the steering did work */
}

/* Feeds exact samples (no noise) of a server clock from `from` to `to`,
 * 64 per second, querying the clock each sample. */
static void feed(zl_clock *c, const server_clock *srv, uint64_t from, uint64_t to)
{
    uint64_t t;
    for (t = from; t < to; t += 15625) {
        zl_clock_observe(c, server_now(srv, t) - 20000u, t);
        (void)zl_clock_snapshot_time(c, t);
    }
}

/* The snapshot clock against the fed stamps (20 ms behind the server). */
static int64_t clock_error(zl_clock *c, const server_clock *srv, uint64_t now)
{
    return (int64_t)zl_clock_snapshot_time(c, now) - ((int64_t)server_now(srv, now) - 20000);
}

static void test_slews_below_snap_threshold(void)
{
    server_clock srv = {1000000000u, 0, START_US + 2000000u, 200000};
    zl_clock c;
    zl_clock_stats st;
    int64_t e3, e6;
    zl_clock_init(&c, NULL);
    feed(&c, &srv, START_US, START_US + 5000000u);
    /* 3 s after a 200 ms step the shown clock is still catching up: it
     * may move only 5 % faster than ours. */
    e3 = clock_error(&c, &srv, START_US + 5000000u);
    feed(&c, &srv, START_US + 5000000u, START_US + 8000000u);
    e6 = clock_error(&c, &srv, START_US + 8000000u);
    zl_clock_get_stats(&c, &st);
    zl_test_note("200 ms step: error %.1f ms after 3 s, %.2f ms after 6 s",
                 (double)e3 / 1000.0, (double)e6 / 1000.0);
    ZL_CHECK(e3 < -40000 && e3 > -200000);
    ZL_CHECK(e6 > -1000 && e6 < 1000);
    ZL_CHECK_EQ(st.snaps, 0);
}

static void test_snaps_on_large_error(void)
{
    server_clock srv = {3000000000u, 0, 0, 0};
    zl_clock c;
    zl_clock_stats st;
    uint64_t t = START_US, before, after;
    zl_clock_init(&c, NULL);
    feed(&c, &srv, START_US, START_US + 2000000u);
    t = START_US + 2000000u;
    /* One packet 400 ms late: ignored, no snap, no visible move. */
    before = zl_clock_snapshot_time(&c, t);
    zl_clock_observe(&c, server_now(&srv, t) - 400000u, t);
    after = zl_clock_snapshot_time(&c, t + 15625);
    ZL_CHECK(after - before >= 15625u - 800u && after - before <= 15625u + 800u);
    zl_clock_get_stats(&c, &st);
    ZL_CHECK_EQ(st.snaps, 0);
    feed(&c, &srv, t + 15625, t + 2 * 15625);
    t += 2 * 15625;
    /* The server restarts: its clock reads near zero. Two samples are not
     * enough; the third in a row snaps, backwards. */
    srv.jump_at_us = t;
    srv.jump_us = -(int64_t)3000000000u;
    feed(&c, &srv, t, t + 2 * 15625);
    zl_clock_get_stats(&c, &st);
    ZL_CHECK_EQ(st.snaps, 0);
    ZL_CHECK(zl_clock_snapshot_time(&c, t + 2 * 15625) > 3000000000u);
    feed(&c, &srv, t + 2 * 15625, t + 3 * 15625);
    zl_clock_get_stats(&c, &st);
    ZL_CHECK_EQ(st.snaps, 1);
    ZL_CHECK(clock_error(&c, &srv, t + 3 * 15625) == 0);
    /* A jump forwards (our clock stalled, say) snaps too. */
    t += 5000000u;
    feed(&c, &srv, t - 4000000u, t);
    srv.jump_us += 10000000;
    feed(&c, &srv, t, t + 3 * 15625);
    zl_clock_get_stats(&c, &st);
    ZL_CHECK_EQ(st.snaps, 2);
    ZL_CHECK(clock_error(&c, &srv, t + 3 * 15625) == 0);
}

static void test_wild_stamps_are_data(void)
{
    zl_clock c;
    zl_clock_stats st;
    uint64_t t = START_US, prev = 0, now;
    int i;
    zl_clock_init(&c, NULL);
    zl_clock_observe(&c, 1000000u, t);
    /* Extreme stamps mixed with sane ones: nothing overflows (UBSan would
     * stop the run), and the clock runs on. */
    for (i = 0; i < 200; i++) {
        uint64_t stamp = (i % 4 == 0) ? UINT64_MAX : (i % 4 == 1) ? 0 : 1000000u + (t - START_US);
        t += 15625;
        zl_clock_observe(&c, stamp, t);
        now = zl_clock_snapshot_time(&c, t);
        (void)zl_clock_render_time(&c, t, (i % 3 == 0) ? UINT32_MAX : 100000u);
        zl_clock_get_stats(&c, &st);
        if (st.snaps == 0)
            ZL_CHECK(now >= prev);
        prev = now;
    }
    zl_clock_get_stats(&c, &st);
    ZL_CHECK_EQ(st.samples, 201);
    /* A server stuck at an absurd time for good is followed, by a snap. */
    for (i = 0; i < 3; i++) {
        t += 15625;
        zl_clock_observe(&c, UINT64_MAX, t);
    }
    ZL_CHECK(zl_clock_snapshot_time(&c, t) >= ((uint64_t)1 << 58) - t);
}

void zl_suite_clock(void)
{
    ZL_RUN(test_first_sample_sets_clock);
    ZL_RUN(test_converges_under_jitter);
    ZL_RUN(test_sample_rate_changes);
    ZL_RUN(test_adaptive_delay);
    ZL_RUN(test_fixed_delay_slews_to_new_floor);
    ZL_RUN(test_monotonic_and_rate_bounded);
    ZL_RUN(test_slews_below_snap_threshold);
    ZL_RUN(test_snaps_on_large_error);
    ZL_RUN(test_wild_stamps_are_data);
}
