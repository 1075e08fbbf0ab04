/* zl_clock.c - the render timeline: an outlier-limited average of snapshot
 * arrival offsets, a shown clock slewed towards it, and a delay sized from arrivals. */
#include <string.h>

#include "zl_clock.h"
#include "zl_int.h"

/* Largest time the clock handles, in microseconds (about 9000 years). */
#define MAX_TIME_US ((uint64_t)1 << 58)
/* The need's peak decays by 1/2^NEED_DECAY_SHIFT of its excess per snapshot. */
#define NEED_DECAY_SHIFT 7
/* Added to the aim on top of one mean deviation, microseconds. */
#define DELAY_MARGIN_US 1000
/* A need this far above the peak, beyond four mean deviations, is a stall
 * unless another comes within STALL_CONFIRM snapshots. */
#define STALL_MARGIN_US 20000
#define STALL_CONFIRM 64
/* Far samples must arrive over this much local time, per sample, to snap:
 * a spike's backlog arrives at one instant. */
#define SNAP_SPACING_US 5000

void zl_clock_settings_default(zl_clock_settings *s)
{
    ZL_ASSERT(s);
    s->snap_us = ZL_CLOCK_SNAP_US;
    s->max_slew_ppm = ZL_CLOCK_MAX_SLEW_PPM;
    s->settle_us = ZL_CLOCK_SETTLE_US;
    s->adaptive = 1;
    s->delay_max_us = ZL_CLOCK_DELAY_MAX_US;
    s->grow_ppm = ZL_CLOCK_DELAY_GROW_PPM;
    s->shrink_ppm = ZL_CLOCK_DELAY_SHRINK_PPM;
}

void zl_clock_init(zl_clock *c, const zl_clock_settings *settings)
{
    ZL_ASSERT(c);
    memset(c, 0, sizeof *c);
    c->since_stall = STALL_CONFIRM;
    if (settings)
        c->set = *settings;
    else
        zl_clock_settings_default(&c->set);
    ZL_ASSERT(c->set.snap_us > 0u && c->set.snap_us <= 100000000u);
    ZL_ASSERT(c->set.settle_us > 0u && c->set.settle_us <= 10000000u);
    ZL_ASSERT(c->set.max_slew_ppm < 1000000u);
    ZL_ASSERT(c->set.delay_max_us <= 10000000u);
    ZL_ASSERT(c->set.shrink_ppm < 1000000u);
    /* The render time must keep moving forwards (zl_clock_render_time). */
    ZL_ASSERT(c->set.grow_ppm + c->set.max_slew_ppm < 1000000u);
}

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
    err = zl_clamp64(c->estimate_q4 / 16 - c->shown_us, -((int64_t)1 << 36), (int64_t)1 << 36);
    step = err * dt / (int64_t)c->set.settle_us;
    cap = dt * (int64_t)c->set.max_slew_ppm / 1000000;
    c->shown_us += zl_clamp64(step, -cap, cap);
}

/* The arrivals' need: at a snapshot newer than all before it, how far the
 * snapshot clock had run past the newest time held until now. */
static void measure_need(zl_clock *c, uint64_t snapshot_time_us, uint64_t now_us)
{
    int64_t late;
    uint32_t need;
    int stall;
    if (snapshot_time_us <= c->newest_us)
        return; /* reordered or repeated: the newest held did not change */
    if (c->newest_us) {
        late = zl_clamp64((int64_t)now_us + c->shown_us - (int64_t)c->newest_us, 0,
                       (int64_t)c->set.delay_max_us);
        need = (uint32_t)late;
        /* The first need sets the peak: there is no rhythm to compare yet. */
        stall = c->need_us > 0 && (int64_t)need > (int64_t)c->need_us +
                                                    4 * (int64_t)(c->jitter_q4 / 16u) +
                                                    STALL_MARGIN_US;
        if (stall && c->since_stall >= STALL_CONFIRM) {
            c->since_stall = 0;
            c->stalls++;
        } else if (need >= c->need_us) {
            c->need_us = need;
        } else {
            c->need_us -= (c->need_us - need) >> NEED_DECAY_SHIFT;
        }
        if (c->since_stall < STALL_CONFIRM)
            c->since_stall++;
    }
    c->newest_us = snapshot_time_us;
}

void zl_clock_observe(zl_clock *c, uint64_t snapshot_time_us, uint64_t now_us)
{
    int64_t sample, err, dev, pull;
    ZL_ASSERT(c);
    advance(c, now_us);
    c->samples++;
    /* The stamp is received data: clamped, so no wild value can overflow
     * the sums below (x 16 for the average). */
    if (snapshot_time_us > MAX_TIME_US)
        snapshot_time_us = MAX_TIME_US;
    sample = (int64_t)snapshot_time_us - (int64_t)now_us;
    if (!c->started) {
        c->started = 1;
        c->last_us = now_us;
        c->shown_us = sample;
        c->estimate_q4 = sample * 16;
        c->newest_us = snapshot_time_us;
        return;
    }
    err = sample - c->shown_us;
    if (err > (int64_t)c->set.snap_us || err < -(int64_t)c->set.snap_us) {
        /* Far samples stay out of the average: one is likely a freak delay,
         * several in a row a new clock, which we jump to, forgetting what
         * the old one said about snapshot times. */
        if (c->far == 0)
            c->far_since_us = now_us;
        if (c->far < UINT8_MAX)
            c->far++;
        if (c->far < ZL_CLOCK_SNAP_SAMPLES ||
            now_us - c->far_since_us < (uint64_t)(c->far - 1u) * SNAP_SPACING_US)
            return;
        c->far = 0;
        c->snaps++;
        c->shown_us = sample;
        c->estimate_q4 = sample * 16;
        c->newest_us = snapshot_time_us;
        return;
    }
    c->far = 0;
    measure_need(c, snapshot_time_us, now_us);
    dev = sample - c->estimate_q4 / 16;
    pull = 4 * (int64_t)(c->jitter_q4 / 16u) + 1000;
    c->estimate_q4 += zl_clamp64(dev, -pull, pull);
    /* Bounded by snap_us (at most 10^8), the sum stays below 2^32. */
    dev = zl_clamp64(dev < 0 ? -dev : dev, 0, (int64_t)c->set.snap_us);
    c->jitter_q4 = c->jitter_q4 - c->jitter_q4 / 16u + (uint32_t)dev;
}

uint64_t zl_clock_snapshot_time(zl_clock *c, uint64_t now_us)
{
    int64_t t;
    ZL_ASSERT(c);
    if (!c->started)
        return now_us;
    advance(c, now_us);
    t = (int64_t)now_us + c->shown_us;
    return t > 0 ? (uint64_t)t : 0u;
}

/* The delay the clock aims at: the floor, or what arrivals need. */
static int64_t delay_aim(const zl_clock *c, uint32_t floor_us)
{
    int64_t aim = 0;
    if (c->set.adaptive) {
        aim = (int64_t)c->need_us + (int64_t)(c->jitter_q4 / 16u) + DELAY_MARGIN_US;
        if (aim > (int64_t)c->set.delay_max_us)
            aim = (int64_t)c->set.delay_max_us;
    }
    return aim > (int64_t)floor_us ? aim : (int64_t)floor_us;
}

uint64_t zl_clock_render_time(zl_clock *c, uint64_t now_us, uint32_t floor_us)
{
    uint64_t snapshot_us = zl_clock_snapshot_time(c, now_us);
    int64_t aim = delay_aim(c, floor_us);
    if (!c->delay_started) {
        c->delay_started = 1;
        c->delay_us = aim;
    } else if (now_us > c->delay_last_us) {
        /* Growth is below dt and the snapshot clock moves by more than
         * dt x (1 - max_slew), so the render time keeps moving forwards as
         * long as grow_ppm + max_slew_ppm < 10^6 (the defaults: 15%). */
        int64_t dt = (int64_t)(now_us - c->delay_last_us);
        if (dt > 10000000)
            dt = 10000000; /* keeps the products small; any longer gap is all due */
        if (aim > c->delay_us)
            c->delay_us += zl_clamp64(aim - c->delay_us, 0, dt * (int64_t)c->set.grow_ppm / 1000000);
        else
            c->delay_us -= zl_clamp64(c->delay_us - aim, 0, dt * (int64_t)c->set.shrink_ppm / 1000000);
    }
    c->delay_last_us = now_us;
    return snapshot_us > (uint64_t)c->delay_us ? snapshot_us - (uint64_t)c->delay_us : 0u;
}

uint32_t zl_clock_delay(const zl_clock *c)
{
    ZL_ASSERT(c);
    return (uint32_t)c->delay_us;
}

void zl_clock_get_stats(const zl_clock *c, zl_clock_stats *out)
{
    ZL_ASSERT(c && out);
    out->samples = c->samples;
    out->snaps = c->snaps;
    out->error_us = (int32_t)zl_clamp64(c->estimate_q4 / 16 - c->shown_us, INT32_MIN, INT32_MAX);
    out->jitter_us = c->jitter_q4 / 16u;
    out->need_us = c->need_us;
    out->stalls = c->stalls;
    out->delay_us = (uint32_t)c->delay_us;
}

void zl_clock_save(const zl_clock *c, zl_bitwriter *w)
{
    ZL_ASSERT(c && w);
    zl_bitwriter_bits(w, c->started, 1);
    zl_bitwriter_bits(w, c->far, 8);
    zl_bitwriter_bits64(w, c->far_since_us);
    zl_bitwriter_bits(w, c->since_stall, 8);
    zl_bitwriter_bits(w, c->delay_started, 1);
    zl_bitwriter_bits64(w, c->last_us);
    zl_bitwriter_bits64(w, (uint64_t)c->shown_us);
    zl_bitwriter_bits64(w, (uint64_t)c->estimate_q4);
    zl_bitwriter_bits(w, c->jitter_q4, 32);
    zl_bitwriter_bits64(w, c->newest_us);
    zl_bitwriter_bits(w, c->need_us, 32);
    zl_bitwriter_bits64(w, c->delay_last_us);
    zl_bitwriter_bits64(w, (uint64_t)c->delay_us);
    zl_bitwriter_bits(w, c->samples, 32);
    zl_bitwriter_bits(w, c->snaps, 32);
    zl_bitwriter_bits(w, c->stalls, 32);
}

/* What a running clock can hold: local and snapshot times below 2^56 us
 * (2,280 years), offsets within +-2^57 (x 16 in the estimate), a delay
 * within +-2^40. Beyond, its sums could overflow. */
static int time_ok(uint64_t t)
{
    return (t >> 56) == 0;
}

static int within(int64_t v, unsigned bits)
{
    return v > -((int64_t)1 << bits) && v < ((int64_t)1 << bits);
}

int zl_clock_load(zl_clock *c, zl_bitreader *r)
{
    zl_clock k;
    ZL_ASSERT(c && r);
    k = *c;
    k.started = (uint8_t)zl_bitreader_bits(r, 1);
    k.far = (uint8_t)zl_bitreader_bits(r, 8);
    k.far_since_us = zl_bitreader_bits64(r);
    k.since_stall = (uint8_t)zl_bitreader_bits(r, 8);
    k.delay_started = (uint8_t)zl_bitreader_bits(r, 1);
    k.last_us = zl_bitreader_bits64(r);
    k.shown_us = (int64_t)zl_bitreader_bits64(r);
    k.estimate_q4 = (int64_t)zl_bitreader_bits64(r);
    k.jitter_q4 = zl_bitreader_bits(r, 32);
    k.newest_us = zl_bitreader_bits64(r);
    k.need_us = zl_bitreader_bits(r, 32);
    k.delay_last_us = zl_bitreader_bits64(r);
    k.delay_us = (int64_t)zl_bitreader_bits64(r);
    k.samples = zl_bitreader_bits(r, 32);
    k.snaps = zl_bitreader_bits(r, 32);
    k.stalls = zl_bitreader_bits(r, 32);
    if (r->error != ZL_OK)
        return r->error;
    if (!time_ok(k.far_since_us) || !time_ok(k.last_us) || !time_ok(k.newest_us) ||
        !time_ok(k.delay_last_us) || !within(k.shown_us, 57) || !within(k.estimate_q4, 61) ||
        !within(k.delay_us, 40) || k.jitter_q4 > 0x7FFFFFFFu || k.need_us > 0x7FFFFFFFu)
        return ZL_ERR_MALFORMED;
    *c = k;
    return ZL_OK;
}
