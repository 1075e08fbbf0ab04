/* test_link.c - two links talking through a simulated lossy, delaying,
 * duplicating channel, checked against what the simulation really did. */
#include <string.h>

#include "zl_link.h"
#include "zl_test.h"

#define PROTOCOL_ID 0x5A4C0001u
#define TICK_US 10000u

/* ---- the channel simulation ---- */

#define FLIGHT_SLOTS 128
#define SIM_PAYLOAD_MAX 100
/* Packets remembered per side, by index; an entry is checked when its slot
 * is reused, HISTORY packets later (10 s at one packet per tick). */
#define HISTORY 1024u

/* One direction of the channel. Loss and duplication in per mille; delays
 * in ticks, drawn uniformly for every copy (so packets can overtake). */
typedef struct path {
    int loss_pm, dup_pm, delay_min, delay_max;
} path;

typedef struct flight {
    uint8_t used, to;
    uint32_t due;   /* tick of delivery */
    uint32_t index; /* sender's packet index: the sequence without wrapping */
    uint16_t ack;   /* the ack the sender put in the header */
    uint16_t len;
    uint8_t data[ZL_PACKET_HEADER_SIZE + SIM_PAYLOAD_MAX];
} flight;

/* One endpoint and what the simulation knows about its packets. */
typedef struct side {
    zl_link link;
    uint32_t sent;               /* packets sent; the next one's index */
    uint8_t copies[HISTORY];     /* copies of each packet that reached the peer */
    uint8_t reported[HISTORY];   /* times its ack was reported to us */
    uint32_t lost;               /* packets of ours the channel dropped */
    uint32_t duplicated;         /* extra copies the channel made */
    uint32_t refused;            /* copies after the first: the peer must refuse */
    uint32_t accepted;           /* packets of ours the peer accepted */
    uint32_t late;               /* ... after a newer one of ours */
    uint32_t newest_arrived;     /* highest index that reached the peer, + 1 */
    uint32_t acks_reported;
    uint32_t short_sequences;    /* packets of ours sent with each field short */
    uint32_t short_acks;
} side;

typedef struct sim {
    side side[2];
    path path[2]; /* path[i] carries side i's packets to side 1 - i */
    flight flight[FLIGHT_SLOTS];
    zl_test_rng rng;
    uint32_t tick;
    int payload_min, payload_max;
    int failed_line; /* of the first broken expectation; 0 while all hold */
    uint64_t loss_sum_in[2], loss_sum_out[2];
    uint32_t loss_samples;
    uint32_t sample_from; /* tick from which loss estimates are averaged */
    int outages; /* a path is cut for longer than the ack window: packets
                    that arrived then may never be reported acked */
} sim;

/* Inside the simulation a broken expectation stops the run and keeps its
 * line, which the test then reports. */
static void expect_at(sim *s, int cond, int line)
{
    if (!cond && s->failed_line == 0)
        s->failed_line = line;
}
#define EXPECT(s, cond) expect_at((s), (cond), __LINE__)

static void sim_init(sim *s, uint64_t seed, path a_to_b, path b_to_a)
{
    memset(s, 0, sizeof *s);
    zl_test_rng_seed(&s->rng, seed);
    zl_link_init(&s->side[0].link, 0);
    zl_link_init(&s->side[1].link, 0);
    s->path[0] = a_to_b;
    s->path[1] = b_to_a;
    s->payload_max = 16;
    s->sample_from = 0xFFFFFFFFu;
}

/* The sender's index of a sequence it sent recently. */
static uint32_t index_of(const side *sd, uint16_t seq)
{
    return sd->sent - 1u - (uint16_t)((uint16_t)(sd->sent - 1u) - seq);
}

static void deliver(sim *s, flight *f)
{
    side *dst = &s->side[f->to], *src = &s->side[1 - f->to];
    zl_packet_header h;
    zl_link_acks acks;
    uint32_t slot = f->index % HISTORY, i;
    int first = src->copies[slot] == 0;
    int r = zl_link_receive(&dst->link, f->data, f->len, PROTOCOL_ID,
                            (uint64_t)s->tick * TICK_US, &h, &acks);
    src->copies[slot]++;
    if (!first) {
        EXPECT(s, r == ZL_ERR_DUPLICATE && acks.count == 0);
        src->refused++;
        return;
    }
    EXPECT(s, r == (int)zl_packet_header_size(&h, 1));
    EXPECT(s, h.sequence == (uint16_t)f->index);
    EXPECT(s, r < 0 || h.ack == f->ack); /* short or long, read as sent */
    EXPECT(s, r < 0 || f->len == r || f->data[r] == (uint8_t)f->index);
    src->accepted++;
    if (f->index + 1u < src->newest_arrived)
        src->late++;
    else
        src->newest_arrived = f->index + 1u;
    /* Each newly acked packet of dst's reached src, oldest first, once. */
    for (i = 0; i < acks.count; i++) {
        uint32_t idx = index_of(dst, acks.sequence[i]);
        EXPECT(s, dst->sent - idx <= HISTORY / 2u);
        EXPECT(s, dst->copies[idx % HISTORY] > 0 && dst->reported[idx % HISTORY] == 0);
        dst->reported[idx % HISTORY]++;
        dst->acks_reported++;
        if (i > 0)
            EXPECT(s, zl_seq_newer(acks.sequence[i], acks.sequence[i - 1]));
    }
}

static void schedule(sim *s, int to, uint32_t index, uint16_t ack, const uint8_t *data, int len)
{
    const path *p = &s->path[1 - to];
    int i;
    for (i = 0; i < FLIGHT_SLOTS && s->flight[i].used; i++)
        ;
    EXPECT(s, i < FLIGHT_SLOTS); /* the simulation's own capacity */
    if (i == FLIGHT_SLOTS)
        return;
    s->flight[i].used = 1;
    s->flight[i].to = (uint8_t)to;
    s->flight[i].due = s->tick + (uint32_t)zl_test_rng_range(&s->rng, p->delay_min, p->delay_max);
    s->flight[i].index = index;
    s->flight[i].ack = ack;
    s->flight[i].len = (uint16_t)len;
    memcpy(s->flight[i].data, data, (size_t)len);
}

static void send_one(sim *s, int from)
{
    side *sd = &s->side[from];
    const path *p = &s->path[from];
    uint8_t buf[ZL_PACKET_HEADER_SIZE + SIM_PAYLOAD_MAX];
    uint32_t slot = sd->sent % HISTORY;
    int payload = zl_test_rng_range(&s->rng, s->payload_min, s->payload_max);
    int len, i;
    zl_packet_header h;
    /* The slot's previous packet left long ago: it was reported as acked
     * exactly when it reached the peer. */
    if (sd->sent >= HISTORY && s->outages)
        EXPECT(s, sd->reported[slot] <= (sd->copies[slot] > 0));
    else if (sd->sent >= HISTORY)
        EXPECT(s, sd->reported[slot] == (sd->copies[slot] > 0));
    sd->copies[slot] = 0;
    sd->reported[slot] = 0;
    EXPECT(s, zl_link_next_sequence(&sd->link) == (uint16_t)sd->sent);
    for (i = 0; i < payload; i++)
        buf[ZL_PACKET_HEADER_SIZE + i] = (uint8_t)(sd->sent + (uint32_t)i);
    zl_link_next_header(&sd->link, 0, &h);
    len = zl_link_send(&sd->link, 0, buf, (size_t)payload, PROTOCOL_ID,
                       (uint64_t)s->tick * TICK_US);
    EXPECT(s, len == (int)zl_packet_header_size(&h, 1) + payload);
    sd->short_sequences += (h.short_fields & ZL_PACKET_SHORT_SEQUENCE) != 0;
    sd->short_acks += (h.short_fields & ZL_PACKET_SHORT_ACK) != 0;
    if (zl_test_rng_range(&s->rng, 0, 999) < p->loss_pm) {
        sd->lost++;
    } else {
        schedule(s, 1 - from, sd->sent, h.ack, buf, len);
        if (zl_test_rng_range(&s->rng, 0, 999) < p->dup_pm) {
            sd->duplicated++;
            schedule(s, 1 - from, sd->sent, h.ack, buf, len);
        }
    }
    sd->sent++;
}

/* One tick: deliver what is due, then each side sends one packet. */
static void sim_tick(sim *s)
{
    int i;
    for (i = 0; i < FLIGHT_SLOTS; i++) {
        if (s->flight[i].used && s->flight[i].due == s->tick) {
            deliver(s, &s->flight[i]);
            s->flight[i].used = 0;
        }
    }
    send_one(s, 0);
    send_one(s, 1);
    s->tick++;
    if (s->tick > s->sample_from) {
        for (i = 0; i < 2; i++) {
            zl_link_stats st;
            zl_link_get_stats(&s->side[i].link, (uint64_t)s->tick * TICK_US, &st);
            s->loss_sum_in[i] += st.loss_in_q16;
            s->loss_sum_out[i] += st.loss_out_q16;
        }
        s->loss_samples++;
    }
}

static void sim_run(sim *s, uint32_t ticks)
{
    uint32_t end = s->tick + ticks;
    while (s->tick < end && s->failed_line == 0)
        sim_tick(s);
}

static zl_link_stats stats_of(sim *s, int i)
{
    zl_link_stats st;
    zl_link_get_stats(&s->side[i].link, (uint64_t)s->tick * TICK_US, &st);
    return st;
}

static int within(int got, int want, int tolerance)
{
    return got >= want - tolerance && got <= want + tolerance;
}

/* A Q16 fraction in per mille, rounded. */
static int per_mille_q16(uint64_t q16) { return (int)((q16 * 1000u + 32768u) / 65536u); }

static sim the_sim;

/* ---- round-trip time ---- */

/* A packet sent at tick t reaches the peer at t + d1, is acked by the
 * peer's packet of that same tick and that arrives at t + d1 + d2. */
static void test_link_rtt_fixed_delay(void)
{
    static const path four = {0, 0, 4, 4}, two = {0, 0, 2, 2}, five = {0, 0, 5, 5};
    sim *s = &the_sim;
    zl_link_stats a, b;
    sim_init(s, 1, four, four);
    sim_run(s, 300);
    ZL_CHECK_EQ(s->failed_line, 0);
    a = stats_of(s, 0);
    b = stats_of(s, 1);
    ZL_CHECK_EQ(a.rtt_us, 80000);
    ZL_CHECK_EQ(b.rtt_us, 80000);
    ZL_CHECK_EQ(a.jitter_us, 0);
    ZL_CHECK_EQ(a.loss_out_q16, 0);
    ZL_CHECK_EQ(b.loss_in_q16, 0);

    sim_init(s, 2, two, five);
    sim_run(s, 300);
    ZL_CHECK_EQ(s->failed_line, 0);
    ZL_CHECK_EQ(stats_of(s, 0).rtt_us, 70000);
    ZL_CHECK_EQ(stats_of(s, 1).rtt_us, 70000);
}

/* Random delays of 30 to 50 ms each way (mean 40) and 5 % loss: the
 * estimate stays near the 80 ms mean round trip and sees the jitter. */
static void test_link_rtt_with_jitter(void)
{
    static const path p = {50, 0, 3, 5};
    sim *s = &the_sim;
    zl_link_stats a;
    sim_init(s, 3, p, p);
    sim_run(s, 3000);
    ZL_CHECK_EQ(s->failed_line, 0);
    a = stats_of(s, 0);
    zl_test_note("rtt %u us, jitter %u us (true mean round trip 80000 us)",
                 (unsigned)a.rtt_us, (unsigned)a.jitter_us);
    ZL_CHECK(a.rtt_us >= 72000 && a.rtt_us <= 88000);
    ZL_CHECK(a.jitter_us >= 2000 && a.jitter_us <= 20000);
    ZL_CHECK(s->side[0].late > 0); /* the jitter reordered packets */
}

/* ---- loss ---- */

/* 10 % loss one way and 25 % the other: each side's estimates match what
 * the channel really dropped, and so do the lost-packet counters. */
static void test_link_loss_both_ways(void)
{
    static const path ab = {100, 0, 2, 4}, ba = {250, 0, 2, 4};
    sim *s = &the_sim;
    zl_link_stats a, b;
    uint32_t ticks = 6000, n;
    int actual_ab, actual_ba;
    sim_init(s, 4, ab, ba);
    s->sample_from = 1000;
    sim_run(s, ticks);
    ZL_CHECK_EQ(s->failed_line, 0);
    a = stats_of(s, 0);
    b = stats_of(s, 1);
    n = s->loss_samples > 0 ? s->loss_samples : 1;
    /* What the channel did, in per mille: it really simulated the loss. */
    actual_ab = (int)(s->side[0].lost * 1000u / ticks);
    actual_ba = (int)(s->side[1].lost * 1000u / ticks);
    zl_test_note("channel a->b %d, b->a %d per mille; mean estimates: b in %d, a out %d, "
                 "a in %d, b out %d",
                 actual_ab, actual_ba, per_mille_q16(s->loss_sum_in[1] / n),
                 per_mille_q16(s->loss_sum_out[0] / n), per_mille_q16(s->loss_sum_in[0] / n),
                 per_mille_q16(s->loss_sum_out[1] / n));
    ZL_CHECK(within(actual_ab, 100, 15));
    ZL_CHECK(within(actual_ba, 250, 25));
    ZL_CHECK(within(per_mille_q16(s->loss_sum_in[1] / n), actual_ab, 15));
    ZL_CHECK(within(per_mille_q16(s->loss_sum_out[0] / n), actual_ab, 15));
    ZL_CHECK(within(per_mille_q16(s->loss_sum_in[0] / n), actual_ba, 15));
    ZL_CHECK(within(per_mille_q16(s->loss_sum_out[1] / n), actual_ba, 15));
    /* Counters judge every packet but the last window's worth. */
    ZL_CHECK(b.packets_lost_in <= s->side[0].lost && b.packets_lost_in + 40 >= s->side[0].lost);
    ZL_CHECK(a.packets_lost_out <= s->side[0].lost && a.packets_lost_out + 40 >= s->side[0].lost);
    ZL_CHECK(a.packets_lost_in <= s->side[1].lost && a.packets_lost_in + 40 >= s->side[1].lost);
    ZL_CHECK(b.packets_lost_out <= s->side[1].lost && b.packets_lost_out + 40 >= s->side[1].lost);
}

/* Loss that starts in the middle of a run moves the estimate from 0 to
 * the new rate and back, within a few hundred packets. */
static void test_link_loss_tracks_changes(void)
{
    static const path clean = {0, 0, 1, 1}, lossy = {500, 0, 1, 1};
    sim *s = &the_sim;
    uint32_t in;
    sim_init(s, 5, clean, clean);
    sim_run(s, 500);
    ZL_CHECK_EQ(stats_of(s, 1).loss_in_q16, 0);
    s->path[0] = lossy;
    sim_run(s, 800);
    in = stats_of(s, 1).loss_in_q16;
    zl_test_note("after 800 packets at 50 %% loss: %d per mille", per_mille_q16(in));
    ZL_CHECK(in > 65536u * 35 / 100 && in < 65536u * 65 / 100);
    s->path[0] = clean;
    sim_run(s, 2000);
    ZL_CHECK_EQ(stats_of(s, 1).loss_in_q16, 0);
    ZL_CHECK_EQ(s->failed_line, 0);
}

/* ---- acks and replays ---- */

/* Loss, duplicates and reordering both ways: every packet that arrived is
 * reported acked exactly once and nothing else is (checked packet by packet
 * inside the simulation), and every duplicate copy is refused and counted. */
static void test_link_acks_exactly_once(void)
{
    static const path p = {100, 50, 1, 6};
    sim *s = &the_sim;
    zl_link_stats a, b;
    sim_init(s, 6, p, p);
    s->payload_max = SIM_PAYLOAD_MAX;
    sim_run(s, 5000);
    ZL_CHECK_EQ(s->failed_line, 0);
    a = stats_of(s, 0);
    b = stats_of(s, 1);
    ZL_CHECK(s->side[0].duplicated > 100 && s->side[0].late > 100); /* really simulated */
    /* All but the extra copies still in flight at the end arrived. */
    ZL_CHECK(s->side[0].refused <= s->side[0].duplicated &&
             s->side[0].refused + 3 >= s->side[0].duplicated);
    ZL_CHECK_EQ(b.dropped[ZL_PACKET_DROP_DUPLICATE], s->side[0].refused);
    ZL_CHECK_EQ(a.dropped[ZL_PACKET_DROP_DUPLICATE], s->side[1].refused);
    ZL_CHECK_EQ(b.dropped[ZL_PACKET_DROP_STALE], 0);
    ZL_CHECK_EQ(b.packets_received, s->side[0].accepted);
    ZL_CHECK_EQ(a.packets_received, s->side[1].accepted);
    ZL_CHECK_EQ(a.packets_acked, s->side[0].acks_reported);
    ZL_CHECK(a.packets_acked + 50 >= b.packets_received && a.packets_acked <= b.packets_received);
}

/* Packets kept by hand, for the tests that replay, hold back and forge. */
#define KEPT 80
static uint8_t kept[KEPT][ZL_PACKET_HEADER_SIZE + 4];
static int kept_len[KEPT];
static zl_link link_a, link_b;

static void keep_sends(zl_link *l, int from, int to, uint64_t now_us)
{
    int i;
    for (i = from; i < to; i++) {
        kept[i][ZL_PACKET_HEADER_SIZE] = (uint8_t)i;
        kept_len[i] = zl_link_send(l, 1, kept[i], 1, PROTOCOL_ID, now_us);
    }
}

static int give(zl_link *l, int i, uint64_t now_us, zl_link_acks *acks)
{
    zl_packet_header h;
    return zl_link_receive(l, kept[i], (size_t)kept_len[i], PROTOCOL_ID, now_us, &h, acks);
}

/* The header of a packet whose ack_bits are all set: they are left out. */
#define ACKS_FULL_HEADER (ZL_PACKET_HEADER_SIZE - 4)

/* A header from a forger who knows the protocol id: any fields at all. */
static int forge(zl_link *l, uint16_t seq, uint16_t ack, uint32_t ack_bits, zl_link_acks *acks)
{
    uint8_t buf[ZL_PACKET_HEADER_SIZE];
    zl_packet_header h;
    h.type = 0;
    h.sequence = seq;
    h.ack = ack;
    h.ack_bits = ack_bits;
    h.short_fields = 0;
    return zl_link_receive(l, buf, (size_t)zl_packet_seal(buf, 0, &h, PROTOCOL_ID), PROTOCOL_ID,
                           0, &h, acks);
}

/* A copy of a packet already received is refused, whether it comes back at
 * once or later; a packet held back (but newer than the window) is taken
 * once; one older than the window is refused as stale. */
static void test_link_replay_refused(void)
{
    zl_link_acks acks;
    zl_link_stats st;
    uint8_t reply[ZL_PACKET_HEADER_SIZE];
    zl_packet_header h;
    int i, len;
    zl_link_init(&link_a, 0);
    zl_link_init(&link_b, 0);
    keep_sends(&link_a, 0, 10, 0);
    for (i = 0; i < 10; i++)
        if (i != 8)
            ZL_CHECK_EQ(give(&link_b, i, 1000, &acks), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(give(&link_b, 5, 1000, &acks), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(give(&link_b, 9, 1000, &acks), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(give(&link_b, 0, 1000, &acks), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(give(&link_b, 8, 1000, &acks), ZL_PACKET_HEADER_SIZE); /* late, new */
    ZL_CHECK_EQ(give(&link_b, 8, 1000, &acks), ZL_ERR_DUPLICATE);
    zl_link_get_stats(&link_b, 1000, &st);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_DUPLICATE], 4);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_STALE], 0);
    ZL_CHECK_EQ(st.packets_received, 10);

    keep_sends(&link_a, 10, KEPT, 2000);
    for (i = 10; i < KEPT; i++)
        ZL_CHECK_EQ(give(&link_b, i, 3000, &acks), ZL_PACKET_HEADER_SIZE);
    /* Newest is 79: 16 is 63 back, the oldest still tracked; 15 is not. */
    ZL_CHECK_EQ(give(&link_b, 16, 3000, &acks), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(give(&link_b, 15, 3000, &acks), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(give(&link_b, 3, 3000, &acks), ZL_ERR_DUPLICATE);
    zl_link_get_stats(&link_b, 3000, &st);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_DUPLICATE], 5);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_STALE], 2);
    ZL_CHECK_EQ(st.packets_lost_in, 0);

    /* b's answer acks a's 48..79, all 32 of its ack bits set, so its header
     * leaves them out; a replay of it acks nothing again. */
    len = zl_link_send(&link_b, 0, reply, 0, PROTOCOL_ID, 4000);
    ZL_CHECK_EQ(len, ZL_PACKET_HEADER_SIZE - 4);
    ZL_CHECK_EQ(zl_link_receive(&link_a, reply, (size_t)len, PROTOCOL_ID, 5000, &h, &acks),
                ZL_PACKET_HEADER_SIZE - 4);
    ZL_CHECK_EQ(acks.count, 32);
    ZL_CHECK_EQ(acks.sequence[0], 48);
    ZL_CHECK_EQ(acks.sequence[31], 79);
    ZL_CHECK_EQ(zl_link_receive(&link_a, reply, (size_t)len, PROTOCOL_ID, 5000, &h, &acks),
                ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(acks.count, 0);
    ZL_CHECK_EQ(h.sequence, 0);
    zl_link_get_stats(&link_a, 5000, &st);
    ZL_CHECK_EQ(st.packets_acked, 32);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_DUPLICATE], 1);
    /* 0..47 fell out of b's ack window unacked: judged lost. */
    ZL_CHECK_EQ(st.packets_lost_out, 48);
    ZL_CHECK_EQ(st.rtt_us, 5000 - 2000);
}

/* What a header acknowledges, packet by packet, and the sample it gives. */
static void test_link_ack_fields(void)
{
    zl_link_acks acks;
    zl_link_stats st;
    uint8_t buf[ZL_PACKET_HEADER_SIZE];
    zl_packet_header h;
    zl_packet_near near;
    int len;
    zl_link_init(&link_a, 0);
    zl_link_init(&link_b, 0);
    /* Nothing received yet: ack_bits 0. */
    len = zl_link_send(&link_b, 2, buf, 0, PROTOCOL_ID, 0);
    ZL_CHECK_EQ(zl_packet_open(buf, (size_t)len, PROTOCOL_ID, NULL, &h, NULL), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(h.ack_bits, 0);
    ZL_CHECK_EQ(h.type, 2);
    ZL_CHECK_EQ(zl_link_receive(&link_a, buf, (size_t)len, PROTOCOL_ID, 0, &h, &acks),
                ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(acks.count, 0);

    keep_sends(&link_a, 0, 3, 10000);
    give(&link_b, 0, 20000, NULL);
    give(&link_b, 2, 20000, NULL); /* 1 is late */
    /* b has seen a acknowledge its packet 0, sent when b had received
     * nothing: its sequence goes short, its ack long. */
    len = zl_link_send(&link_b, 0, buf, 0, PROTOCOL_ID, 20000);
    near = zl_link_near(&link_a);
    ZL_CHECK_EQ(zl_packet_open(buf, (size_t)len, PROTOCOL_ID, &near, &h, NULL),
                ZL_PACKET_HEADER_SIZE - 1);
    ZL_CHECK_EQ(h.short_fields, ZL_PACKET_SHORT_SEQUENCE);
    ZL_CHECK_EQ(h.sequence, 1);
    ZL_CHECK_EQ(h.ack, 2);
    ZL_CHECK_EQ(h.ack_bits, 5); /* 2 and 0 */
    ZL_CHECK_EQ(zl_link_receive(&link_a, buf, (size_t)len, PROTOCOL_ID, 35000, &h, &acks),
                ZL_PACKET_HEADER_SIZE - 1);
    ZL_CHECK_EQ(acks.count, 2);
    ZL_CHECK_EQ(acks.sequence[0], 0);
    ZL_CHECK_EQ(acks.sequence[1], 2);
    /* Two samples of 25000 us: the first sets the deviation to half of
     * it, the second brings that down by a quarter: 12500 * 3/4. */
    zl_link_get_stats(&link_a, 35000, &st);
    ZL_CHECK_EQ(st.rtt_us, 25000);
    ZL_CHECK_EQ(st.jitter_us, 9375);

    give(&link_b, 1, 40000, NULL);
    len = zl_link_send(&link_b, 0, buf, 0, PROTOCOL_ID, 40000);
    ZL_CHECK_EQ(zl_link_receive(&link_a, buf, (size_t)len, PROTOCOL_ID, 50000, &h, &acks),
                ZL_PACKET_HEADER_SIZE - 1);
    ZL_CHECK_EQ(h.ack_bits, 7);
    ZL_CHECK_EQ(acks.count, 1);
    ZL_CHECK_EQ(acks.sequence[0], 1);
    /* A sample of 40000 us: the mean moves 1/8 of the 15000 us difference
     * and the deviation 1/4 of the way from 9375 to 15000. */
    zl_link_get_stats(&link_a, 50000, &st);
    ZL_CHECK_EQ(st.rtt_us, 25000 + 15000 / 8);
    ZL_CHECK_EQ(st.jitter_us, 9375 + (15000 - 9375) / 4);
    ZL_CHECK_EQ(st.packets_acked, 3);
}

/* A packet that arrives late but inside the windows is neither lost nor
 * refused; only sequences that never came count as lost, on both sides. */
static void test_link_late_packet_not_lost(void)
{
    static const int order[] = {3, 1, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
    uint8_t buf[ZL_PACKET_HEADER_SIZE];
    zl_packet_header h;
    zl_link_acks acks;
    zl_link_stats a, b;
    int i, len;
    zl_link_init(&link_a, 0);
    zl_link_init(&link_b, 0);
    keep_sends(&link_a, 0, KEPT, 0);
    /* 0 and 2 never come, 1 comes after 3, 5 comes late. */
    for (i = 0; i < (int)ZL_COUNTOF(order); i++)
        ZL_CHECK_EQ(give(&link_b, order[i], 0, NULL), ZL_PACKET_HEADER_SIZE);
    len = zl_link_send(&link_b, 0, buf, 0, PROTOCOL_ID, 0);
    zl_link_receive(&link_a, buf, (size_t)len, PROTOCOL_ID, 0, &h, &acks);
    ZL_CHECK_EQ(acks.count, ZL_COUNTOF(order));
    ZL_CHECK_EQ(give(&link_b, 5, 0, NULL), ZL_PACKET_HEADER_SIZE);
    for (i = 20; i < KEPT; i++) {
        if (i > 20)
            ZL_CHECK_EQ(give(&link_b, i, 0, NULL), ZL_PACKET_HEADER_SIZE);
        len = zl_link_send(&link_b, 0, buf, 0, PROTOCOL_ID, 0);
        zl_link_receive(&link_a, buf, (size_t)len, PROTOCOL_ID, 0, &h, &acks);
        if (i == 20) {
            ZL_CHECK_EQ(acks.count, 1);
            ZL_CHECK_EQ(acks.sequence[0], 5);
        }
    }
    give(&link_b, 20, 0, NULL); /* late by 59: still inside the window */
    zl_link_get_stats(&link_a, 0, &a);
    zl_link_get_stats(&link_b, 0, &b);
    /* 0 and 2, and 20: it reached b only after b's acks had moved past. */
    ZL_CHECK_EQ(a.packets_lost_out, 3);
    ZL_CHECK_EQ(b.packets_lost_in, 1);   /* 2; 0 predates the oldest received */
    ZL_CHECK_EQ(b.packets_received, KEPT - 2);
    ZL_CHECK_EQ(a.packets_acked, KEPT - 3);
}

/* With no answer at all, sent packets are judged lost when their record
 * is reused, ZL_LINK_SENT_CAPACITY packets later. */
static void test_link_loss_out_without_acks(void)
{
    uint8_t buf[ZL_PACKET_HEADER_SIZE];
    zl_link_stats a;
    int i;
    zl_link_init(&link_a, 0);
    for (i = 0; i < ZL_LINK_SENT_CAPACITY + 44; i++)
        zl_link_send(&link_a, 0, buf, 0, PROTOCOL_ID, 0);
    zl_link_get_stats(&link_a, 0, &a);
    ZL_CHECK_EQ(a.packets_lost_out, 44);
    /* 44 steps of 1/128 towards 1: 1 - (127/128)^44, about 0.29. */
    ZL_CHECK(a.loss_out_q16 > 65536u / 4 && a.loss_out_q16 < 65536u / 3);
}

/* Headers a forger might send: acks of packets never sent, a sequence far
 * ahead. They are data: nothing is acked that was not sent, and a jump
 * costs the forger the loss estimate, nothing else. */
static void test_link_hostile_headers(void)
{
    zl_link_acks acks;
    zl_link_stats st;
    uint16_t seq;
    zl_link_init(&link_a, 0);
    keep_sends(&link_a, 0, 10, 0);
    ZL_CHECK_EQ(forge(&link_a, 0, 5000, 0xFFFFFFFFu, &acks), ACKS_FULL_HEADER);
    ZL_CHECK_EQ(acks.count, 0);
    ZL_CHECK_EQ(forge(&link_a, 1, 9, 0, &acks), ZL_PACKET_HEADER_SIZE); /* no bits: no acks */
    ZL_CHECK_EQ(acks.count, 0);
    ZL_CHECK_EQ(forge(&link_a, 2, 65535, 0xFFFFFFFFu, &acks), ACKS_FULL_HEADER);
    ZL_CHECK_EQ(acks.count, 0);
    zl_link_get_stats(&link_a, 0, &st);
    ZL_CHECK_EQ(st.packets_acked, 0);
    ZL_CHECK_EQ(st.packets_lost_out, 0); /* nothing judged on a bogus ack */
    /* An ack of 9 with every bit set acks exactly the ten packets sent. */
    ZL_CHECK_EQ(forge(&link_a, 3, 9, 0xFFFFFFFFu, &acks), ACKS_FULL_HEADER);
    ZL_CHECK_EQ(acks.count, 10);
    ZL_CHECK_EQ(acks.sequence[0], 0);
    ZL_CHECK_EQ(acks.sequence[9], 9);

    for (seq = 4; seq < 10; seq++)
        forge(&link_a, seq, 0, 0, NULL);
    /* From 9 to 30000: 10 .. 29936 are beyond the window now, lost. */
    ZL_CHECK_EQ(forge(&link_a, 30000, 0, 0, &acks), ZL_PACKET_HEADER_SIZE);
    zl_link_get_stats(&link_a, 0, &st);
    ZL_CHECK_EQ(st.packets_lost_in, 29927);
    ZL_CHECK_EQ(st.loss_in_q16, 65536);
    ZL_CHECK_EQ(forge(&link_a, 10, 0, 0, &acks), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(forge(&link_a, 29990, 0, 0, &acks), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(forge(&link_a, 29990, 0, 0, &acks), ZL_ERR_DUPLICATE);
    /* 65 ahead: the whole window leaves (62 of it missing) and one more. */
    ZL_CHECK_EQ(forge(&link_a, 30065, 0, 0, &acks), ZL_PACKET_HEADER_SIZE);
    zl_link_get_stats(&link_a, 0, &st);
    ZL_CHECK_EQ(st.packets_lost_in, 29927 + 62 + 1);
    /* 32768 ahead reads as 32768 behind: refused as stale. */
    ZL_CHECK_EQ(forge(&link_a, (uint16_t)(30065u + 32768u), 0, 0, &acks), ZL_ERR_DUPLICATE);
    zl_link_get_stats(&link_a, 0, &st);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_STALE], 2);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_DUPLICATE], 1);
    ZL_CHECK_EQ(st.packets_received, 13);
}

/* An ack that named a sequence before it was sent, repeated once it is
 * sent, acknowledges it: the link does not take the first for an answer.
 * An ack repeated as is acknowledges nothing twice. */
static void test_link_ack_before_send(void)
{
    zl_link_acks acks;
    zl_link_init(&link_a, 0);
    keep_sends(&link_a, 0, 3, 0);
    ZL_CHECK_EQ(forge(&link_a, 0, 4, 0x1Fu, &acks), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(acks.count, 3);
    keep_sends(&link_a, 3, 5, 0);
    ZL_CHECK_EQ(forge(&link_a, 1, 4, 0x1Fu, &acks), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(acks.count, 2);
    ZL_CHECK_EQ(acks.sequence[0], 3);
    ZL_CHECK_EQ(acks.sequence[1], 4);
    ZL_CHECK_EQ(forge(&link_a, 2, 4, 0x1Fu, &acks), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(acks.count, 0);
    /* An older ack, then a newer one: each packet still counted once. */
    keep_sends(&link_a, 5, 8, 0);
    ZL_CHECK_EQ(forge(&link_a, 3, 6, 0x1u, &acks), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(acks.count, 1);
    ZL_CHECK_EQ(forge(&link_a, 4, 7, 0xFFu, &acks), ZL_PACKET_HEADER_SIZE);
    ZL_CHECK_EQ(acks.count, 2);
    ZL_CHECK_EQ(acks.sequence[0], 5);
    ZL_CHECK_EQ(acks.sequence[1], 7);
}

/* zl_link_acks_unsent names the acks an honest peer never sends: of a
 * sequence not sent yet, or of one before the first; past the 16-bit wrap
 * the window still knows what went out before it. */
static void test_link_acks_unsent(void)
{
    zl_packet_header h;
    uint8_t packet[ZL_PACKET_HEADER_SIZE];
    uint32_t i;
    memset(&h, 0, sizeof h);
    zl_link_init(&link_a, 0);
    ZL_CHECK_EQ(zl_link_acks_unsent(&link_a, &h), 0); /* no bits: names nothing */
    keep_sends(&link_a, 0, 3, 0); /* sequences 0, 1, 2 */
    h.ack = 2;
    h.ack_bits = 0x7u;
    ZL_CHECK_EQ(zl_link_acks_unsent(&link_a, &h), 0);
    h.ack_bits = 0xFu; /* and 65535, before the first */
    ZL_CHECK_EQ(zl_link_acks_unsent(&link_a, &h), 1);
    h.ack = 3; /* one ahead of the newest */
    h.ack_bits = 0x1u;
    ZL_CHECK_EQ(zl_link_acks_unsent(&link_a, &h), 1);
    h.ack_bits = 0xEu; /* 2, 1 and 0 only */
    ZL_CHECK_EQ(zl_link_acks_unsent(&link_a, &h), 0);
    /* 65536 + 5 sent: the newest is 4, and 65535 .. 65505 went out too. */
    for (i = 3; i < 65541u; i++)
        ZL_CHECK_EQ(zl_link_send(&link_a, 1, packet, 0, PROTOCOL_ID, 0), ZL_PACKET_HEADER_SIZE);
    h.ack = 4;
    h.ack_bits = 0xFFFFFFFFu;
    ZL_CHECK_EQ(zl_link_acks_unsent(&link_a, &h), 0);
    h.ack = 5;
    ZL_CHECK_EQ(zl_link_acks_unsent(&link_a, &h), 1);
    h.ack_bits = 0xFFFFFFFEu; /* 4 and the 30 before it */
    ZL_CHECK_EQ(zl_link_acks_unsent(&link_a, &h), 0);
}

/* Bad datagrams on a link are dropped and counted by reason. */
static void test_link_counts_bad_datagrams(void)
{
    uint8_t *big = (uint8_t *)zl_test_exact_buffer(ZL_MAX_PACKET + 1);
    zl_packet_header h;
    zl_link_acks acks;
    zl_link_stats st;
    zl_link_init(&link_a, 0);
    zl_link_init(&link_b, 0);
    keep_sends(&link_a, 0, 3, 0);
    memset(big, 0, ZL_MAX_PACKET + 1);
    ZL_CHECK_EQ(zl_link_receive(&link_b, big, ZL_MAX_PACKET + 1, PROTOCOL_ID, 0, &h, &acks),
                ZL_ERR_TRUNCATED);
    zl_test_release_buffer(big);
    ZL_CHECK_EQ(zl_link_receive(&link_b, kept[0], 4, PROTOCOL_ID, 0, &h, &acks), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(zl_link_receive(&link_b, kept[0], (size_t)kept_len[0], PROTOCOL_ID + 1, 0, &h,
                                &acks),
                ZL_ERR_MALFORMED);
    kept[1][7] ^= 0x10;
    ZL_CHECK_EQ(give(&link_b, 1, 0, &acks), ZL_ERR_MALFORMED);
    kept[1][7] ^= 0x10;
    ZL_CHECK_EQ(give(&link_b, 1, 0, &acks), ZL_PACKET_HEADER_SIZE);
    zl_link_get_stats(&link_b, 0, &st);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_OVERSIZED], 1);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_SHORT], 1);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_CHECKSUM], 2);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_NONE], 0);
    ZL_CHECK_EQ(st.packets_received, 1);
}

/* ---- bandwidth ---- */

/* 113-byte datagrams every 10 ms are 11300 bytes/s, exactly, once a full
 * second has been seen; silence brings the rate down a quarter at a time. */
static void test_link_bandwidth(void)
{
    static uint8_t buf[ZL_PACKET_HEADER_SIZE + 100];
    zl_packet_header h;
    zl_link_stats a, b;
    uint32_t t;
    zl_link_init(&link_a, 0);
    zl_link_init(&link_b, 0);
    for (t = 0; t < 200; t++) {
        uint64_t now = (uint64_t)t * TICK_US;
        int len = zl_link_send(&link_a, 0, buf, 100, PROTOCOL_ID, now);
        zl_link_receive(&link_b, buf, (size_t)len, PROTOCOL_ID, now, &h, NULL);
        if (t == 50) {
            zl_link_get_stats(&link_a, now, &a);
            ZL_CHECK_EQ(a.bytes_out_per_s, 50 * 113); /* two quarters so far */
        }
    }
    zl_link_get_stats(&link_a, 2000000, &a);
    zl_link_get_stats(&link_b, 2000000, &b);
    ZL_CHECK_EQ(a.bytes_out_per_s, 11300);
    ZL_CHECK_EQ(b.bytes_in_per_s, 11300);
    ZL_CHECK_EQ(a.bytes_in_per_s, 0);
    ZL_CHECK_EQ(b.bytes_out_per_s, 0);
    zl_link_get_stats(&link_b, 2500000, &b);
    ZL_CHECK_EQ(b.bytes_in_per_s, 11300 / 2);
    zl_link_get_stats(&link_b, 3000000, &b);
    ZL_CHECK_EQ(b.bytes_in_per_s, 0);
    /* After a long silence the buckets restart cleanly. */
    zl_link_get_stats(&link_b, 100000000, &b);
    ZL_CHECK_EQ(b.bytes_in_per_s, 0);
    for (t = 0; t < 100; t++) {
        uint64_t now = 100000000u + (uint64_t)t * TICK_US;
        int len = zl_link_send(&link_a, 0, buf, 100, PROTOCOL_ID, now);
        zl_link_receive(&link_b, buf, (size_t)len, PROTOCOL_ID, now, &h, NULL);
    }
    zl_link_get_stats(&link_b, 101000000, &b);
    ZL_CHECK_EQ(b.bytes_in_per_s, 11300);
}

/* ---- the long run ---- */

/* More than 2^17 packets each way with loss, duplicates and reordering:
 * the 16-bit sequences wrap twice and every ack stays exact throughout.
 * Not shortened by ZL_TEST_ITERATIONS, as the wrap is the point: the run
 * takes about 2 s on the emulated Cortex-M3. */
static void test_link_long_run_across_wrap(void)
{
    static const path p = {50, 20, 1, 4};
    sim *s = &the_sim;
    zl_link_stats a;
    uint32_t ticks = 140000u;
    sim_init(s, 7, p, p);
    sim_run(s, ticks);
    ZL_CHECK_EQ(s->failed_line, 0);
    ZL_CHECK(s->side[0].sent >= 131072u && s->side[1].sent >= 131072u);
    a = stats_of(s, 0);
    zl_test_note("%u packets each way, %u acked, %u lost out, rtt %u us",
                 (unsigned)s->side[0].sent, (unsigned)a.packets_acked,
                 (unsigned)a.packets_lost_out, (unsigned)a.rtt_us);
    ZL_CHECK_EQ(a.packets_acked, s->side[0].acks_reported);
    ZL_CHECK(a.packets_acked + 50 >= s->side[0].accepted && a.packets_acked <= s->side[0].accepted);
    ZL_CHECK_EQ(a.packets_received, s->side[1].accepted);
    ZL_CHECK_EQ(a.dropped[ZL_PACKET_DROP_DUPLICATE], s->side[1].refused);
}

/* Short sequences and acks (zl_link.c gives the rules) through what could
 * make a receiver misread them: outages of several hundred packets one
 * way, the other, and both, each ending past the wrap at 2^16, and then
 * reordering by up to 40 packets. Every packet is read as sent (deliver
 * checks its sequence and ack), every ack names a packet that arrived,
 * once; fields go long while the peer's reference is out of reach and
 * short again once acknowledged. */
static void test_link_short_fields_through_outages(void)
{
    static const path clean = {0, 0, 1, 3}, cut = {1000, 0, 1, 3}, shuffled = {0, 0, 1, 40};
    static const struct {
        int a_cut, b_cut;
        uint32_t ticks;
    } phase[] = {{0, 0, 65300}, {1, 0, 500}, {0, 0, 300}, {0, 1, 600}, {0, 0, 300},
                 {1, 1, 400}, {0, 0, 300}};
    sim *s = &the_sim;
    zl_link_stats a, b;
    uint32_t i, long_a = 0, long_b = 0;
    sim_init(s, 37, clean, clean);
    s->outages = 1;
    for (i = 0; i < ZL_COUNTOF(phase); i++) {
        uint32_t short_a = s->side[0].short_sequences, short_b = s->side[1].short_sequences;
        s->path[0] = phase[i].a_cut ? cut : clean;
        s->path[1] = phase[i].b_cut ? cut : clean;
        sim_run(s, phase[i].ticks);
        /* A side whose packets are cut learns of no new ack: its
         * sequences go long 128 packets in. */
        if (phase[i].a_cut)
            long_a += phase[i].ticks - (s->side[0].short_sequences - short_a);
        if (phase[i].b_cut)
            long_b += phase[i].ticks - (s->side[1].short_sequences - short_b);
    }
    ZL_CHECK(s->side[0].sent > 65536u);
    /* Less a few packets sent before the acks of those before them
     * came back. */
    ZL_CHECK(long_a >= 500 - 128 + 400 - 128 && long_a <= 500 - 128 + 400 - 128 + 16);
    ZL_CHECK(long_b >= 600 - 128 + 400 - 128 && long_b <= 600 - 128 + 400 - 128 + 16);
    s->path[0] = s->path[1] = shuffled;
    sim_run(s, 2000);
    s->path[0] = s->path[1] = clean;
    sim_run(s, 100);
    ZL_CHECK_EQ(s->failed_line, 0);
    a = stats_of(s, 0);
    b = stats_of(s, 1);
    zl_test_note("%u packets each way: %u and %u with a short sequence, %u and %u a short ack",
                 (unsigned)s->side[0].sent, (unsigned)s->side[0].short_sequences,
                 (unsigned)s->side[1].short_sequences, (unsigned)s->side[0].short_acks,
                 (unsigned)s->side[1].short_acks);
    ZL_CHECK(s->side[0].short_sequences + 2000u > s->side[0].sent - long_a);
    ZL_CHECK(s->side[0].short_acks > s->side[0].sent / 2u);
    ZL_CHECK_EQ(a.packets_acked, s->side[0].acks_reported);
    ZL_CHECK_EQ(b.packets_acked, s->side[1].acks_reported);
    ZL_CHECK_EQ(a.packets_received, s->side[1].accepted);
    ZL_CHECK_EQ(b.packets_received, s->side[0].accepted);
    ZL_CHECK_EQ(a.dropped[ZL_PACKET_DROP_CHECKSUM] + b.dropped[ZL_PACKET_DROP_CHECKSUM], 0);
}

/* A packet overtaken by more than its short ack can reach: the peer has
 * taken an ack 200 ahead of it from a later packet, so the short ack
 * widens to another value. The CRC covers the value as widened, so the
 * packet is dropped as a failed check, nothing of it taken, where a
 * misread ack would have acknowledged packets never received. */
static void test_link_short_ack_out_of_reach_dropped(void)
{
    uint8_t late[ZL_PACKET_HEADER_SIZE], buf[ZL_PACKET_HEADER_SIZE];
    zl_packet_header h, sent;
    zl_link_acks acks;
    zl_link_stats st;
    int i, late_len, len;
    zl_link_init(&link_a, 0);
    zl_link_init(&link_b, 0);
    for (i = 0; i < 3; i++) {
        len = zl_link_send(&link_a, 0, buf, 0, PROTOCOL_ID, 0);
        zl_link_receive(&link_b, buf, (size_t)len, PROTOCOL_ID, 0, &h, NULL);
        len = zl_link_send(&link_b, 0, buf, 0, PROTOCOL_ID, 0);
        zl_link_receive(&link_a, buf, (size_t)len, PROTOCOL_ID, 0, &h, NULL);
    }
    zl_link_next_header(&link_a, 0, &sent);
    ZL_CHECK_EQ(sent.short_fields, ZL_PACKET_SHORT_SEQUENCE | ZL_PACKET_SHORT_ACK);
    late_len = zl_link_send(&link_a, 0, late, 0, PROTOCOL_ID, 0);
    for (i = 0; i < 200; i++) {
        len = zl_link_send(&link_b, 0, buf, 0, PROTOCOL_ID, 0);
        zl_link_receive(&link_a, buf, (size_t)len, PROTOCOL_ID, 0, &h, NULL);
    }
    len = zl_link_send(&link_a, 0, buf, 0, PROTOCOL_ID, 0);
    ZL_CHECK_EQ(zl_link_receive(&link_b, buf, (size_t)len, PROTOCOL_ID, 0, &h, NULL),
                ZL_PACKET_HEADER_SIZE - 4 - 1); /* its own ack long: out of reach */
    ZL_CHECK_EQ(h.short_fields, ZL_PACKET_SHORT_SEQUENCE);
    ZL_CHECK_EQ((uint16_t)(h.ack - sent.ack), 200);
    ZL_CHECK_EQ(zl_link_receive(&link_b, late, (size_t)late_len, PROTOCOL_ID, 0, &h, &acks),
                ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(acks.count, 0);
    zl_link_get_stats(&link_b, 0, &st);
    ZL_CHECK_EQ(st.dropped[ZL_PACKET_DROP_CHECKSUM], 1);
    ZL_CHECK_EQ(st.packets_received, 4);
}

void zl_suite_link(void)
{
    ZL_RUN(test_link_rtt_fixed_delay);
    ZL_RUN(test_link_rtt_with_jitter);
    ZL_RUN(test_link_loss_both_ways);
    ZL_RUN(test_link_loss_tracks_changes);
    ZL_RUN(test_link_acks_exactly_once);
    ZL_RUN(test_link_replay_refused);
    ZL_RUN(test_link_ack_fields);
    ZL_RUN(test_link_late_packet_not_lost);
    ZL_RUN(test_link_loss_out_without_acks);
    ZL_RUN(test_link_hostile_headers);
    ZL_RUN(test_link_ack_before_send);
    ZL_RUN(test_link_acks_unsent);
    ZL_RUN(test_link_counts_bad_datagrams);
    ZL_RUN(test_link_bandwidth);
    ZL_RUN(test_link_long_run_across_wrap);
    ZL_RUN(test_link_short_fields_through_outages);
    ZL_RUN(test_link_short_ack_out_of_reach_dropped);
}
