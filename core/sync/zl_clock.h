/* zl_clock.h - the client's render timeline: the server time of the snapshots
 * as they arrive, filtered and steered, and the interpolation delay behind it.
 * Not part of the API (docs/ARCHITECTURE.md): public because the client, which
 * the application allocates, embeds its timeline; zl_client_config.timeline
 * and zl_client_stats.clock are its settings and stats, and an application
 * calls none of it. */
#ifndef ZL_CLOCK_H
#define ZL_CLOCK_H

#include "zl_base.h"
#include "zl_bits.h"

ZL_BEGIN_DECLS

/* The model (Source's): two clocks, never confused.
 *
 * The *snapshot clock* reads the server time of the snapshots arriving now.
 * A snapshot stamped with server time S that arrives at local time T gives
 * the sample S - T; the samples are averaged over about 16 snapshots (under
 * symmetric jitter the average is unbiased, where keeping the least-delayed
 * sample would run early by the jitter), each sample's pull limited to four
 * mean deviations so one late packet barely moves it. What the clock shows
 * is steered towards that average: its rate differs from the local clock's
 * by error / settle_us, at most max_slew_ppm, so it never jumps and never
 * runs backwards. When ZL_CLOCK_SNAP_SAMPLES samples in a row differ from
 * what it shows by more than snap_us (the server restarted, the local clock
 * jumped), arriving over at least ZL_CLOCK_SNAP_SAMPLES snapshot intervals
 * of local time, it jumps to the newest sample and counts a snap; the late
 * snapshots a lag spike releases all at once never make it jump. The first sample
 * sets it at once. No round trip enters it: at any latency, the newest
 * snapshot held is about as old as the snapshot clock's reading.
 *
 * The *render time* is the snapshot clock minus the interpolation delay:
 * other entities are drawn there, between two snapshots already received,
 * whatever the latency. The delay is never below the floor the caller gives
 * (Source's max(cl_interp, ratio / updaterate)). With `adaptive` on, it also
 * covers what the arrivals need: at each snapshot newer than every one
 * before, the snapshot clock's reading minus the newest time held until
 * then is how far behind the render time had to be for that moment not to
 * run past the snapshots (one snapshot interval on a quiet link; more with
 * jitter, late packets and lost snapshots). The delay aims at the peak of
 * those needs, plus a margin of one mean deviation and 1 ms; the peak
 * follows a larger need at once and decays towards the recent needs over
 * about 128 snapshots. A need far above the peak (four mean deviations
 * and 20 ms) that does not come again within 64 snapshots is a stall (a
 * loss burst, a lag spike), not the link's rhythm: the peak ignores it,
 * the client rides it out by extrapolating (whose drawing the server
 * rebuilds exactly for lag compensation) and counts it in `stalls`, so one
 * spike does not leave everyone drawn half a second late for the next
 * half minute. The delay moves towards its aim by slewing the render
 * clock (at most grow_ppm slower or shrink_ppm faster than local time), so
 * it grows quickly when snapshots start arriving late, shrinks slowly, and
 * the render time never jumps or runs backwards. The server's *present*,
 * for display, is the snapshot clock plus half the round trip: the caller
 * adds it (zl_client does). */

/* Run-time settings of a clock. */
typedef struct zl_clock_settings {
    uint32_t snap_us;      /* error that makes the clock jump (1 .. 10^8) */
    uint32_t max_slew_ppm; /* steering bound, parts per million (< 1000000) */
    uint32_t settle_us;    /* an error shrinks by ~63 % in this time (1 .. 10^7) */
    uint8_t adaptive;      /* 1: the delay also covers what arrivals need (1) */
    uint32_t delay_max_us; /* the adaptive delay's ceiling (500000; at most 10^7);
                              a floor above it still applies */
    uint32_t grow_ppm;     /* fastest growth of the delay, per local time
                              (100000: the render clock runs at 0.9);
                              grow_ppm + max_slew_ppm < 1000000 */
    uint32_t shrink_ppm;   /* fastest shrinking (10000: at 1.01; < 1000000) */
} zl_clock_settings;

/* Measurements of a clock (zl_clock_get_stats). */
typedef struct zl_clock_stats {
    uint32_t samples;  /* zl_clock_observe calls */
    uint32_t snaps;    /* jumps after the first sample */
    uint32_t stalls;   /* needs the delay ignored as stalls */
    int32_t error_us;  /* estimate minus what the clock shows (what is left
                          to steer), clamped to the int32 range */
    uint32_t jitter_us; /* smoothed mean deviation of samples from the estimate */
    uint32_t need_us;  /* the arrivals' need (decaying peak), before margin */
    uint32_t delay_us; /* the interpolation delay in use */
} zl_clock_stats;

/* A clock. Caller-owned (client state); every field is private. */
typedef struct zl_clock {
    zl_clock_settings set;
    uint8_t started;
    uint8_t far;            /* consecutive samples beyond snap_us */
    uint64_t far_since_us;  /* local time of the first of them */
    uint8_t since_stall;    /* snapshots since a stall's need (saturates) */
    uint8_t delay_started;  /* delay_us holds a value */
    uint64_t last_us;       /* local time the shown offset is valid for */
    int64_t shown_us;       /* shown snapshot time minus local time */
    int64_t estimate_q4;    /* smoothed sample offset, x 16 */
    uint32_t jitter_q4;     /* smoothed mean deviation, x 16 */
    uint64_t newest_us;     /* newest snapshot time observed */
    uint32_t need_us;       /* decaying peak of the arrivals' need */
    uint64_t delay_last_us; /* local time delay_us is valid for */
    int64_t delay_us;       /* the delay in use */
    uint32_t samples, snaps, stalls;
} zl_clock;

/* Fills *s with the defaults (ZL_CLOCK_* above). */
void zl_clock_settings_default(zl_clock_settings *s);

/* Starts a clock with no sample. settings: NULL for the defaults, else
 * copied (out of its documented ranges: programmer error). */
void zl_clock_init(zl_clock *c, const zl_clock_settings *settings);

/* Feeds one sample: a snapshot stamped snapshot_time_us (the server's clock
 * at sending) arrived at now_us (our clock, microseconds). now_us is below
 * 2^58 and never decreases from call to call (of any function here). Any
 * stamp is accepted (above 2^58 it is clamped): a wild one is data,
 * filtered or snapped to, never a crash. */
void zl_clock_observe(zl_clock *c, uint64_t snapshot_time_us, uint64_t now_us);

/* The server time of the snapshots arriving at now_us, in microseconds.
 * Between snaps it never decreases as now_us does not, and it moves at
 * 1 +- max_slew_ppm of local time. Before the first sample it is now_us
 * itself (check zl_clock_get_stats samples). Never below 0. */
uint64_t zl_clock_snapshot_time(zl_clock *c, uint64_t now_us);

/* The time to draw other entities at, at now_us: the snapshot clock minus
 * the delay (see the model), or 0 while that is negative. floor_us is the
 * smallest delay (the caller's interpolation setting; it may change from
 * call to call: the delay slews to a new floor too, except at the first
 * call, which starts at max(floor, need)). Between snaps it never decreases
 * as now_us does not. */
uint64_t zl_clock_render_time(zl_clock *c, uint64_t now_us, uint32_t floor_us);

/* The delay in use at the last zl_clock_render_time, microseconds (0 before
 * the first). */
uint32_t zl_clock_delay(const zl_clock *c);

/* Writes the clock's whole state (not its settings) into w (626 bits), so
 * that zl_clock_load makes a clock that runs on exactly as this one (a
 * demo keyframe, zl_demo.h). */
void zl_clock_save(const zl_clock *c, zl_bitwriter *w);

/* Reads a state written by zl_clock_save from r (hostile bytes fine) into
 * c, whose settings stay. ZL_OK, or the reader's error (ZL_ERR_OVERFLOW)
 * or ZL_ERR_MALFORMED for values no clock holds (c then unchanged). */
int zl_clock_load(zl_clock *c, zl_bitreader *r);

/* Copies the counters and measurements into *out. */
void zl_clock_get_stats(const zl_clock *c, zl_clock_stats *out);

ZL_END_DECLS

#endif
