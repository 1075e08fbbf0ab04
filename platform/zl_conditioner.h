/* zl_conditioner.h - the link conditioner: wraps a zl_platform and impairs its
 * datagrams (delay, jitter, loss, bursts, lag spikes, copies, reordering, a
 * bandwidth cap). */
#ifndef ZL_CONDITIONER_H
#define ZL_CONDITIONER_H

#include "zl_platform.h"

ZL_BEGIN_DECLS

/* Probabilities are in parts per million: 100000 is 10 %, 1000000 always. */
#define ZL_CONDITIONER_PPM 1000000u
/* Largest value of any *_us setting: about 35 minutes, so that every sum of
 * delays stays far from overflow. */
#define ZL_CONDITIONER_MAX_US 0x7FFFFFFFu

/* The two directions, conditioned independently: datagrams the application
 * sends, and datagrams it receives. */
typedef enum zl_conditioner_dir {
    ZL_CONDITIONER_SEND = 0,
    ZL_CONDITIONER_RECEIVE = 1
} zl_conditioner_dir;

/* What one direction does to each datagram, in this order:
 *   1. Gilbert-Elliott loss: the datagram is lost with the loss chance of the
 *      current state (good or bad), then the state may switch.
 *   2. Uniform loss.
 *   3. Bandwidth: the datagram waits for the ones ahead of it on a link of
 *      bandwidth_bytes_per_s, then takes len / bandwidth seconds to go out;
 *      if it would wait longer than bandwidth_queue_us it is dropped (a
 *      router's buffer measured in time; 0 means no buffer at all).
 *   4. Duplication: a copy is made after the bottleneck (it costs no
 *      bandwidth) and is delayed on its own from step 5 on.
 *   5. Delay: latency_us plus a uniform draw in [-jitter_us, +jitter_us]
 *      (never below zero).
 *   6. Order: a datagram never overtakes one that entered before it, even
 *      with jitter, unless it is one of the reorder_ppm held back: those get
 *      reorder_delay_us more and are exempt from the ordering, so later
 *      datagrams may overtake them (with reorder_delay_us 0 only jitter moves
 *      them).
 *   7. Lag spikes: the link freezes for spike_us once every spike_every_us
 *      (a Wi-Fi stall). A datagram that would be delivered while a spike
 *      lasts is held and delivered at the spike's end, together with every
 *      other one held, in the order they would have come. Spikes start at
 *      phase + k * spike_every_us (k = 0, 1, 2 ...) on the inner platform's
 *      clock, where phase < spike_every_us comes from the conditioner's
 *      seed: the same seed freezes both directions together (when they have
 *      the same spike settings), another seed at another moment.
 *      zl_conditioner_next_spike says when.
 * All zero, or enabled 0, is a pass-through without delay that still counts
 * every datagram. Probabilities above ZL_CONDITIONER_PPM, times above
 * ZL_CONDITIONER_MAX_US, and a spike_us that is not below spike_every_us
 * (a link that never thaws, or a spike without a period) are refused by
 * zl_conditioner_configure. */
typedef struct zl_conditioner_settings {
    uint8_t enabled;               /* 0: ignore every field below */
    uint32_t latency_us;           /* one-way delay added, microseconds */
    uint32_t jitter_us;            /* uniform spread around latency_us */
    uint32_t loss_ppm;             /* independent loss per datagram */
    uint32_t burst_enter_ppm;      /* Gilbert-Elliott: good -> bad, per datagram */
    uint32_t burst_exit_ppm;       /* bad -> good, per datagram */
    uint32_t burst_loss_good_ppm;  /* loss chance in the good state */
    uint32_t burst_loss_bad_ppm;   /* loss chance in the bad state */
    uint32_t duplicate_ppm;        /* chance of one extra copy */
    uint32_t reorder_ppm;          /* chance of being held back (see 6.) */
    uint32_t reorder_delay_us;     /* extra delay of a held-back datagram */
    uint32_t bandwidth_bytes_per_s; /* 0: unlimited */
    uint32_t bandwidth_queue_us;   /* longest wait for the link before a drop */
    uint32_t spike_every_us;       /* period of the lag spikes, microseconds */
    uint32_t spike_us;             /* length of each spike; 0: none */
} zl_conditioner_settings;

/* What one direction actually did. Every datagram that entered is, at any
 * moment, delivered, queued or counted in exactly one dropped_* field:
 *   seen + duplicated == delivered + queued + dropped_loss + dropped_burst
 *                        + dropped_bandwidth + dropped_pool + dropped_refused */
typedef struct zl_conditioner_stats {
    uint32_t seen;              /* datagrams that entered this direction */
    uint32_t duplicated;        /* extra copies made */
    uint32_t delivered;         /* handed on (send: accepted by the inner
                                 * send; receive: returned to the caller) */
    uint32_t queued;            /* held right now, waiting for their time */
    uint32_t reordered;         /* delivered after a datagram that entered
                                 * later (a copy counts as its original) */
    uint32_t spiked;            /* datagrams (copies included) held by a lag
                                 * spike until its end; those that then found
                                 * the pool full are in dropped_pool instead */
    uint32_t spikes;            /* lag spikes that met at least one datagram */
    uint32_t dropped_loss;      /* uniform loss */
    uint32_t dropped_burst;     /* Gilbert-Elliott loss, either state */
    uint32_t bursts;            /* Gilbert-Elliott: times the bad state was
                                 * entered (with all lost there and none in
                                 * the good state, dropped_burst / bursts is
                                 * the mean burst length) */
    uint32_t dropped_bandwidth; /* would have waited too long for the link */
    uint32_t dropped_pool;      /* no free packet in the pool */
    uint32_t dropped_refused;   /* send: the inner send failed when it was
                                 * due; receive: the caller's buffer was too
                                 * small (ZL_ERR_TRUNCATED) */
    uint64_t bytes_seen;
    uint64_t bytes_delivered;
    uint64_t delay_total_us;    /* delay added to the delivered datagrams (due
                                 * time minus entry time; a late pump is not
                                 * counted): divide by delivered for the mean */
} zl_conditioner_stats;

/* Private: one datagram held in the pool. */
typedef struct zl_conditioner_packet {
    uint64_t entered_us;
    uint64_t due_us;
    uint32_t seq; /* order of entry in its direction; a copy shares it */
    zl_addr addr; /* destination when sending, source when receiving */
    uint16_t len;
    int16_t next; /* next in its queue or the free list, -1 at the end */
    uint8_t data[ZL_MAX_PACKET];
} zl_conditioner_packet;

/* Private: one direction's settings, counters and state. */
typedef struct zl_conditioner_lane {
    zl_conditioner_settings set;
    zl_conditioner_stats stats;
    int16_t head, tail;     /* queue sorted by due time, -1 when empty */
    uint8_t bad;            /* Gilbert-Elliott state */
    uint8_t any_delivered;
    uint32_t next_seq;
    uint32_t high_seq;      /* highest sequence delivered so far */
    uint64_t last_due_us;   /* due time of the last datagram kept in order */
    uint64_t link_free_us;  /* when the bottleneck finishes its queue */
    uint64_t spike_end_us;  /* end of the last spike that met a datagram */
    uint32_t link_frac;     /* remainder of the last transmission time, in
                             * 1/bandwidth microseconds */
} zl_conditioner_lane;

/* A conditioner; caller-owned, statically sized (about
 * ZL_CONDITIONER_PACKETS * ZL_MAX_PACKET bytes), fields private. */
typedef struct zl_conditioner {
    zl_platform inner;
    uint64_t rng;
    uint64_t spike_phase;   /* drawn from the seed: where spikes fall */
    zl_conditioner_lane lane[2];
    int16_t free_head;
    zl_conditioner_packet packet[ZL_CONDITIONER_PACKETS];
    uint8_t scratch[ZL_MAX_PACKET]; /* a received datagram before admission */
} zl_conditioner;

/* Prepares c to wrap `inner` (copied; its ctx must outlive c) and fills
 * *outer, whose ctx is c:
 *   send    conditions the datagram and queues it for the inner send.
 *           Returns ZL_OK once accepted (a simulated loss is still ZL_OK,
 *           as with UDP), ZL_ERR_INVALID for len 0 or above ZL_MAX_PACKET,
 *           ZL_ERR_AGAIN when the pool is full (dropped and counted), or the
 *           inner send's error when the datagram fell due at once and the
 *           inner send refused it. Later refusals are only counted.
 *   receive pulls every datagram waiting in the inner platform into the
 *           queue (its entry time is now; one that finds the pool full is
 *           dropped and counted even when this direction is a
 *           pass-through), then returns the earliest one
 *           that is due: its length, or ZL_ERR_AGAIN when none is due,
 *           ZL_ERR_TRUNCATED when it is larger than cap (consumed, counted
 *           as refused, nothing written past cap). An inner error other
 *           than ZL_ERR_AGAIN is returned as is; that datagram never entered.
 *   now_us, random pass straight through to inner.
 * Outgoing datagrams reach the inner send only when a send, a receive or
 * zl_conditioner_pump runs at or after their due time: call one each tick.
 * Incoming datagrams are timed from the receive call that pulls them.
 * Both directions start disabled (pass-through). Everything random comes
 * from `seed` (any value, 0 included): the same seed, settings and calls at
 * the same times give the same deliveries. */
void zl_conditioner_init(zl_conditioner *c, const zl_platform *inner, uint64_t seed,
                         zl_platform *outer);

/* Fills the Gilbert-Elliott fields of *s (the others are left alone) for
 * loss bursts of mean_datagrams on average, one starting about every
 * every_us, on a direction carrying datagrams_per_s: every datagram is
 * lost in the bad state and none in the good one. A bad spell lasts
 * 1 / exit datagrams on average, so exit = 1 / mean; a good and a bad
 * spell together span cycle = datagrams_per_s * every_us datagrams, so
 * enter = 1 / (cycle - mean). At 64 datagrams a second, a mean of 10
 * about every 2 s: exit 100000 ppm, enter 1 / 118 = 8474 ppm, 7.8% lost.
 * Returns ZL_OK, or ZL_ERR_INVALID (*s unchanged) for a mean of 0, or a
 * cycle not longer than the mean (bursts back to back). */
int zl_conditioner_bursts(zl_conditioner_settings *s, uint32_t mean_datagrams, uint32_t every_us,
                          uint32_t datagrams_per_s);

/* Replaces one direction's settings, at any time. Queued datagrams keep
 * their due times, later ones still do not overtake them; the
 * Gilbert-Elliott state restarts good. Returns ZL_OK, or ZL_ERR_INVALID
 * (settings unchanged) when a probability exceeds ZL_CONDITIONER_PPM or a
 * time exceeds ZL_CONDITIONER_MAX_US. */
int zl_conditioner_configure(zl_conditioner *c, zl_conditioner_dir dir,
                             const zl_conditioner_settings *settings);

/* Hands every outgoing datagram that is due to the inner send. Returns how
 * many were handed over (refusals included; see dropped_refused). */
int zl_conditioner_pump(zl_conditioner *c);

/* Due time (inner now_us clock) of the earliest datagram queued in dir, or
 * UINT64_MAX when none is. Datagrams not yet pulled from the inner platform
 * are not seen. Lets a simulation jump its clock from event to event. */
uint64_t zl_conditioner_next_due(const zl_conditioner *c, zl_conditioner_dir dir);

/* Start time (inner now_us clock) of the lag spike in progress at now_us in
 * dir, or of the next one when none is; UINT64_MAX when dir has no spikes
 * (disabled, or spike_us 0). The spike lasts until that plus spike_us. */
uint64_t zl_conditioner_next_spike(const zl_conditioner *c, zl_conditioner_dir dir,
                                   uint64_t now_us);

/* The counters of one direction; the pointer stays valid as long as c. */
const zl_conditioner_stats *zl_conditioner_get_stats(const zl_conditioner *c,
                                                     zl_conditioner_dir dir);

ZL_END_DECLS

#endif
