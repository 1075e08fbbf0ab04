/* zl_clock.c - server clock estimation: an outlier-limited average of the
 * sample offsets, and a shown clock that slews towards it at a bounded rate. */
#include <string.h>

#include "zl_clock.h"

/* Largest time the clock handles, in microseconds (about 9000 years). */
#define MAX_TIME_US ((uint64_t)1 << 58)

void zl_clock_default_settings(zl_clock_settings *s)
{
    ZL_ASSERT(s);
    s->snap_us = ZL_CLOCK_SNAP_US;
    s->max_slew_ppm = ZL_CLOCK_MAX_SLEW_PPM;
    s->settle_us = ZL_CLOCK_SETTLE_US;
}

void zl_clock_init(zl_clock *c, const zl_clock_settings *settings)
{
    ZL_ASSERT(c);
    memset(c, 0, sizeof *c);
    if (settings)
        c->set = *settings;
    else
        zl_clock_default_settings(&c->set);
    ZL_ASSERT(c->set.snap_us > 0u && c->set.snap_us <= 100000000u);
    ZL_ASSERT(c->set.settle_us > 0u && c->set.settle_us <= 10000000u);
    ZL_ASSERT(c->set.max_slew_ppm < 1000000u);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Moves the shown offset to local time now_us. The step is at most
 * dt x max_slew_ppm, strictly less than dt, so now + shown never decreases:
 * that is the monotonic guarantee. */
static void advance(zl_clock *c, uint64_t now_us)
{
    int64_t dt, err, step, cap;
    if (now_us <= c->last_us)
        return;
    dt = (int64_t)(now_us - c->last_us);
    c->last_us = now_us;
    if (dt > (int64_t)c->set.settle_us)
        dt = (int64_t)c->set.settle_us; /* the whole error is due; keeps products small */
    /* The error is bounded by the snap logic in practice; the clamp only
     * keeps the product below in range whatever the samples were. */
    err = clamp64(c->estimate_q4 / 16 - c->shown_us, -((int64_t)1 << 36), (int64_t)1 << 36);
    step = err * dt / (int64_t)c->set.settle_us;
    cap = dt * (int64_t)c->set.max_slew_ppm / 1000000;
    c->shown_us += clamp64(step, -cap, cap);
}

void zl_clock_observe(zl_clock *c, uint64_t server_time_us, uint64_t now_us, uint32_t rtt_us)
{
    int64_t sample, err, dev, pull;
    ZL_ASSERT(c);
    advance(c, now_us);
    c->samples++;
    /* The stamp is received data: clamped, so no wild value can overflow
     * the sums below (x 16 for the average). */
    if (server_time_us > MAX_TIME_US)
        server_time_us = MAX_TIME_US;
    sample = (int64_t)server_time_us + (int64_t)(rtt_us / 2u) - (int64_t)now_us;
    if (!c->started) {
        c->started = 1;
        c->last_us = now_us;
        c->shown_us = sample;
        c->estimate_q4 = sample * 16;
        return;
    }
    err = sample - c->shown_us;
    if (err > (int64_t)c->set.snap_us || err < -(int64_t)c->set.snap_us) {
        /* Far samples stay out of the average: one is likely a freak delay,
         * several in a row a new clock, which we jump to. */
        if (++c->far < ZL_CLOCK_SNAP_SAMPLES)
            return;
        c->far = 0;
        c->snaps++;
        c->shown_us = sample;
        c->estimate_q4 = sample * 16;
        return;
    }
    c->far = 0;
    dev = sample - c->estimate_q4 / 16;
    pull = 4 * (int64_t)(c->jitter_q4 / 16u) + 1000;
    c->estimate_q4 += clamp64(dev, -pull, pull);
    /* Bounded by snap_us (at most 10^8), the sum stays below 2^32. */
    dev = clamp64(dev < 0 ? -dev : dev, 0, (int64_t)c->set.snap_us);
    c->jitter_q4 = c->jitter_q4 - c->jitter_q4 / 16u + (uint32_t)dev;
}

uint64_t zl_clock_server_time(zl_clock *c, uint64_t now_us)
{
    int64_t t;
    ZL_ASSERT(c);
    if (!c->started)
        return now_us;
    advance(c, now_us);
    t = (int64_t)now_us + c->shown_us;
    return t > 0 ? (uint64_t)t : 0u;
}

void zl_clock_get_stats(const zl_clock *c, zl_clock_stats *out)
{
    ZL_ASSERT(c && out);
    out->samples = c->samples;
    out->snaps = c->snaps;
    out->error_us = (int32_t)clamp64(c->estimate_q4 / 16 - c->shown_us, INT32_MIN, INT32_MAX);
    out->jitter_us = c->jitter_q4 / 16u;
}
