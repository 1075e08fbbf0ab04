/* zl_clock.h - the client's estimate of the server's clock: filtered from
 * snapshot time stamps and the round trip, steered smoothly, snapped on large errors. */
#ifndef ZL_CLOCK_H
#define ZL_CLOCK_H

#include "zl_base.h"

/* Defaults of zl_clock_settings; see there. */
#ifndef ZL_CLOCK_SNAP_US
#define ZL_CLOCK_SNAP_US 250000u
#endif
#ifndef ZL_CLOCK_MAX_SLEW_PPM
#define ZL_CLOCK_MAX_SLEW_PPM 50000u
#endif
#ifndef ZL_CLOCK_SETTLE_US
#define ZL_CLOCK_SETTLE_US 250000u
#endif
/* Consecutive samples beyond the snap threshold that make the clock jump:
 * fewer would let one badly delayed packet throw the clock around. */
#ifndef ZL_CLOCK_SNAP_SAMPLES
#define ZL_CLOCK_SNAP_SAMPLES 3
#endif

/* The model. A snapshot stamped with server time S (microseconds, the
 * server's clock) that arrives at local time T, on a link whose round trip
 * is R, says that at T the server's clock reads about S + R / 2 (the
 * one-way delay taken as half the round trip). The sample's offset
 * S + R/2 - T is smoothed over about 16 snapshots (an average: under
 * symmetric jitter it is unbiased, where keeping the least-delayed sample
 * would be early by the jitter), each sample's pull limited to four mean
 * deviations so one late packet barely moves it. What the clock shows is
 * steered towards that estimate: its rate differs from the local clock's
 * by error / settle_us, at most max_slew_ppm, so it never jumps and never
 * runs backwards. When ZL_CLOCK_SNAP_SAMPLES samples in a row differ from
 * what it shows by more than snap_us (the server restarted, the local
 * clock jumped), it jumps to the newest sample, forwards or backwards,
 * and counts a snap. The first sample also sets the clock at once. */

/* Run-time settings of a clock. */
typedef struct zl_clock_settings {
    uint32_t snap_us;      /* error that makes the clock jump (1 .. 10^8) */
    uint32_t max_slew_ppm; /* steering bound, parts per million (< 1000000) */
    uint32_t settle_us;    /* an error shrinks by ~63 % in this time (1 .. 10^7) */
} zl_clock_settings;

/* Measurements of a clock (zl_clock_get_stats). */
typedef struct zl_clock_stats {
    uint32_t samples;  /* zl_clock_observe calls */
    uint32_t snaps;    /* jumps after the first sample */
    int32_t error_us;  /* estimate minus what the clock shows (what is left
                          to steer), clamped to the int32 range */
    uint32_t jitter_us; /* smoothed mean deviation of samples from the estimate */
} zl_clock_stats;

/* A clock. Caller-owned (client state); every field is private. */
typedef struct zl_clock {
    zl_clock_settings set;
    uint8_t started;
    uint8_t far;            /* consecutive samples beyond snap_us */
    uint64_t last_us;       /* local time the shown offset is valid for */
    int64_t shown_us;       /* shown server time minus local time */
    int64_t estimate_q4;    /* smoothed sample offset, x 16 */
    uint32_t jitter_q4;     /* smoothed mean deviation, x 16 */
    uint32_t samples, snaps;
} zl_clock;

/* Fills *s with the defaults (ZL_CLOCK_* above). */
void zl_clock_default_settings(zl_clock_settings *s);

/* Starts a clock with no sample. settings: NULL for the defaults, else
 * copied (out of its documented ranges: programmer error). */
void zl_clock_init(zl_clock *c, const zl_clock_settings *settings);

/* Feeds one sample: a packet stamped server_time_us (the server's clock at
 * sending) arrived at now_us (our clock, microseconds), on a link whose
 * smoothed round trip is rtt_us (0 before one is known: the delay then
 * counts as none). now_us is below 2^58 and never decreases from call to
 * call (of either function). Any stamp is accepted (above 2^58 it is
 * clamped): a wild one is data, filtered or snapped to, never a crash. */
void zl_clock_observe(zl_clock *c, uint64_t server_time_us, uint64_t now_us, uint32_t rtt_us);

/* The server's clock as we believe it reads at now_us, in microseconds.
 * Between snaps it never decreases as now_us does not, and it moves at
 * 1 +- max_slew_ppm of local time. Before the first sample it is now_us
 * itself (check zl_clock_get_stats samples). Never below 0. */
uint64_t zl_clock_server_time(zl_clock *c, uint64_t now_us);

/* Copies the counters and measurements into *out. */
void zl_clock_get_stats(const zl_clock *c, zl_clock_stats *out);

#endif
