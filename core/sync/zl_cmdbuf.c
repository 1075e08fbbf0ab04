/* zl_cmdbuf.c - the server's per-client input buffer: dedupe, jitter
 * measurement, real-time release at a bounded pace, and shedding. */
#include <string.h>

#include "zl_cmdbuf.h"

/* A deviation beyond this is clamped before it enters the jitter average,
 * so one absurd arrival (or a hostile msec clock) moves it by a bounded
 * step and the sums never overflow. */
#define MAX_DEVIATION_US 1000000

void zl_cmdbuf_settings_default(zl_cmdbuf_settings *s)
{
    ZL_ASSERT(s);
    s->budget_ms = ZL_CMDBUF_BUDGET_MS;
    s->catchup_ticks = ZL_CMDBUF_CATCHUP_TICKS;
    s->max_target_ms = ZL_CMDBUF_MAX_TARGET_MS;
    s->jitter_scale_q4 = ZL_CMDBUF_JITTER_SCALE_Q4;
    s->slack_ms = ZL_CMDBUF_SLACK_MS;
    s->window_ms = ZL_CMDBUF_WINDOW_MS;
}

void zl_cmdbuf_init(zl_cmdbuf *b, const zl_cmdbuf_settings *settings, uint32_t first_sequence)
{
    ZL_ASSERT(b);
    memset(b, 0, sizeof *b);
    if (settings)
        b->set = *settings;
    else
        zl_cmdbuf_settings_default(&b->set);
    /* Trusted configuration, bounded so that every sum of microseconds
     * below fits an int32. */
    ZL_ASSERT(b->set.window_ms > 0u && b->set.window_ms <= 60000u);
    ZL_ASSERT(b->set.budget_ms <= 60000u && b->set.max_target_ms <= 60000u);
    ZL_ASSERT(b->set.slack_ms <= 60000u && b->set.jitter_scale_q4 <= 1024u);
    ZL_ASSERT(b->set.catchup_ticks >= 1u && b->set.catchup_ticks <= 16u);
    b->newest = first_sequence - 1u;
}

static uint32_t target_us(const zl_cmdbuf *b)
{
    /* jitter_q4 <= 16 x MAX_DEVIATION_US and the scale <= 1024: the product
     * fits 64 bits, and the cap brings it back under 32. */
    uint64_t t = ((uint64_t)b->jitter_q4 * b->set.jitter_scale_q4) / 256u;
    uint64_t cap = (uint64_t)b->set.max_target_ms * 1000u;
    return (uint32_t)(t < cap ? t : cap);
}

static uint32_t msec_us(const zl_usercmd *c) { return (uint32_t)c->msec * 1000u; }

static void drop_oldest(zl_cmdbuf *b)
{
    b->depth_us -= msec_us(ZL_RING_AT(&b->ring, 0));
    ZL_RING_POP(&b->ring);
}

/* One jitter sample per packet that brought new commands: how late it came
 * against the client's own clock (the sum of its msec), as a deviation from
 * the smoothed lateness: RFC 3550's interarrival jitter in spirit, smoothed
 * over 16 packets. A sender whose clock runs fast looks ever earlier, which
 * raises its own target only. */
static void sample_jitter(zl_cmdbuf *b, uint64_t now_us)
{
    int64_t dev;
    if (!b->timeline) {
        /* Anchor the client's clock to this arrival: lateness 0. */
        b->client_end_us = now_us;
        b->transit_q4 = 0;
        b->timeline = 1;
        return;
    }
    dev = (int64_t)now_us - (int64_t)b->client_end_us - b->transit_q4 / 16;
    if (dev > MAX_DEVIATION_US)
        dev = MAX_DEVIATION_US;
    if (dev < -MAX_DEVIATION_US)
        dev = -MAX_DEVIATION_US;
    b->transit_q4 += dev;
    b->jitter_q4 = b->jitter_q4 - b->jitter_q4 / 16u + (uint32_t)(dev < 0 ? -dev : dev);
}

int zl_cmdbuf_push(zl_cmdbuf *b, const zl_usercmd *cmds, int count, uint64_t now_us)
{
    int i, kept = 0, any_new = 0;
    ZL_ASSERT(b && count >= 0 && (cmds || count == 0));
    for (i = 0; i < count; i++) {
        const zl_usercmd *c = &cmds[i];
        uint32_t ahead = c->sequence - b->newest;
        b->stats.received++;
        /* Ahead by half the space or more is behind: a stale copy. */
        if (ahead == 0u || ahead >= 0x80000000u) {
            b->stats.duplicates++;
            continue;
        }
        if (ahead > 1u) {
            b->stats.lost += ahead - 1u;
            b->timeline = 0; /* their msec are unknown: re-anchor */
        }
        b->newest = c->sequence;
        if (zl_usercmd_validate(c) != ZL_OK) {
            b->stats.invalid++;
            b->timeline = 0;
            continue;
        }
        any_new = 1;
        /* A command dropped for room still spent the client's time. */
        b->client_end_us += msec_us(c);
        if (ZL_RING_FULL(&b->ring)) {
            b->stats.overflow++;
            continue;
        }
        *ZL_RING_NEXT(&b->ring) = *c;
        ZL_RING_COMMIT(&b->ring);
        b->depth_us += msec_us(c);
        b->started = 1;
        kept++;
    }
    if (any_new)
        sample_jitter(b, now_us);
    return kept;
}

/* End of a window: pause to raise a margin that fell below the target,
 * or, while the margin stays above target + slack, give back pauses still
 * outstanding (the cushion they built runs, caught up) and then shed the
 * oldest (stalest) commands. */
static void end_window(zl_cmdbuf *b)
{
    int32_t target = (int32_t)target_us(b);
    int32_t slack = (int32_t)(b->set.slack_ms * 1000u);
    int32_t limit = target + slack;
    /* Starving by more than the target and twice the slack is a stall (a
     * loss burst, a lag spike), not lateness: the credit pays for it, and a
     * pause would take that owed time back. */
    if (b->set.max_target_ms > 0u && b->margin_us < target &&
        b->margin_us >= -target - 2 * slack) {
        /* Pauses do not stack past one target plus one command: a client
         * that sends nothing for a while keeps a bounded debt. */
        int32_t floor = -target - (int32_t)(ZL_USERCMD_MSEC_MAX * 1000);
        int32_t credit = b->credit_us - (target - b->margin_us);
        if (credit < floor)
            credit = floor;
        if (credit < b->credit_us) {
            b->stats.delay_added_us += (uint32_t)(b->credit_us - credit);
            b->paused_us += b->credit_us - credit;
            b->credit_us = credit;
        }
    } else if (b->margin_us > limit && b->paused_us > 0) {
        int32_t give = b->margin_us - limit < b->paused_us ? b->margin_us - limit : b->paused_us;
        b->credit_us += give;
        b->paused_us -= give;
        b->margin_us -= give;
    }
    while (!ZL_RING_EMPTY(&b->ring)) {
        int32_t m = (int32_t)msec_us(ZL_RING_AT(&b->ring, 0));
        if (b->margin_us - m < limit)
            break;
        b->margin_us -= m;
        drop_oldest(b);
        b->stats.dropped_ahead++;
    }
    b->window_us = 0;
}

int zl_cmdbuf_pop(zl_cmdbuf *b, uint32_t tick_us, zl_usercmd *out, int max)
{
    int n = 0, owed;
    int32_t margin;
    /* The most command time one tick runs: a backlog plays out at a
     * bounded pace. */
    uint64_t pace_us = (uint64_t)b->set.catchup_ticks * tick_us, run_us = 0;
    ZL_ASSERT(b && out && max >= 1);
    ZL_ASSERT(tick_us >= 1u && tick_us <= ZL_CMDBUF_MAX_TICK_US);
    /* Time before the first command is nobody's: no credit, no window. */
    if (!b->started)
        return 0;
    if (b->window_us == 0u)
        b->margin_us = INT32_MAX;
    /* Credit beyond this tick's, kept from ticks that had nothing to run:
     * what runs on it is a backlog catching up. */
    owed = b->credit_us > 0;
    b->credit_us += (int32_t)tick_us;
    /* A command runs once half its time has accrued: rounding to the
     * nearest tick keeps the credit centred, so commands about a tick long
     * run one per tick instead of flickering between none and two. */
    while (n < max && !ZL_RING_EMPTY(&b->ring) &&
           2 * (int64_t)b->credit_us >= (int64_t)msec_us(ZL_RING_AT(&b->ring, 0)) &&
           (n == 0 || run_us + msec_us(ZL_RING_AT(&b->ring, 0)) <= pace_us)) {
        out[n] = *ZL_RING_AT(&b->ring, 0);
        b->credit_us -= (int32_t)msec_us(&out[n]);
        run_us += msec_us(&out[n]);
        b->stats.caught_up += (uint32_t)(owed && run_us > tick_us);
        drop_oldest(b);
        n++;
    }
    b->stats.executed += (uint32_t)n;
    if (b->credit_us > (int32_t)(b->set.budget_ms * 1000u))
        b->credit_us = (int32_t)(b->set.budget_ms * 1000u);
    if (n == 0 && b->credit_us > 0 && ZL_RING_EMPTY(&b->ring))
        b->stats.underruns++;
    /* How long the buffer could go on without a new command: what it holds
     * plus a debt still to be paid (credit < 0), or minus credit already
     * waiting for commands that have not come (credit > 0). */
    margin = (int32_t)b->depth_us - b->credit_us;
    if (margin < b->margin_us)
        b->margin_us = margin;
    b->window_us += tick_us;
    if (b->window_us >= b->set.window_ms * 1000u)
        end_window(b);
    return n;
}

uint32_t zl_cmdbuf_newest(const zl_cmdbuf *b)
{
    ZL_ASSERT(b);
    return b->newest;
}

void zl_cmdbuf_get_stats(const zl_cmdbuf *b, zl_cmdbuf_stats *out)
{
    ZL_ASSERT(b && out);
    *out = b->stats;
    out->depth_cmds = ZL_RING_COUNT(&b->ring);
    out->depth_us = b->depth_us;
    out->jitter_us = b->jitter_q4 / 16u;
    out->target_us = target_us(b);
}
