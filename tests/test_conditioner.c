/* test_conditioner.c - the link conditioner proves what it simulated: delay,
 * jitter, loss, bursts, lag spikes, copies, reordering and throughput measured
 * at the far end. */
#include <math.h>
#include <string.h>

#include "zl_conditioner.h"
#include "zl_loopnet.h"
#include "zl_test.h"

/* Statistical checks allow this many standard deviations: by the normal
 * approximation a correct conditioner misses by more with probability about
 * 10^-6, so a failure means the simulation is off, not an unlucky seed
 * (1000 seeds each, full and shortened, all passed). */
#define SIGMAS 5.0
#define START_US 1000000u
#define HEADER 12 /* sequence (4 bytes) and send time (8), little-endian */
#define MAX_SEQ 65536u

/* Stream lengths: ZL_TEST_ITERATIONS shortens them on slow ports, but not
 * below 2000 datagrams, where every statistical check below still has the
 * power to catch a wrong rate (the M3 runs 2000 in well under a second). */
static uint32_t stream_len(uint32_t n)
{
    uint32_t k = ZL_TEST_ITERATIONS(n);
    return k < 2000u ? 2000u : k;
}

/* A sends through cond_a to B, which receives through cond_b; both wrap
 * endpoints of one in-memory network driven by the fake clock. */
static zl_loopnet net;
static zl_loopnet_endpoint ep_a, ep_b;
static zl_platform raw_a, raw_b, hal_a, hal_b;
static zl_conditioner cond_a, cond_b;
static zl_addr addr_a, addr_b;

static void setup(uint64_t seed)
{
    zl_platform clock;
    zl_test_fake_platform(&clock);
    zl_test_time_us = START_US;
    zl_loopnet_init(&net, &clock);
    addr_a = zl_addr_ipv4(10, 0, 0, 1, 1000);
    addr_b = zl_addr_ipv4(10, 0, 0, 2, 2000);
    zl_loopnet_open(&net, &ep_a, &addr_a, &raw_a);
    zl_loopnet_open(&net, &ep_b, &addr_b, &raw_b);
    zl_conditioner_init(&cond_a, &raw_a, seed, &hal_a);
    zl_conditioner_init(&cond_b, &raw_b, seed ^ 0xB0B, &hal_b);
}

static void configure(zl_conditioner *c, zl_conditioner_dir dir, const zl_conditioner_settings *s)
{
    ZL_CHECK_EQ(zl_conditioner_configure(c, dir, s), ZL_OK);
}

/* The accounting identity of zl_conditioner_stats, for both directions. */
static void check_accounting(const zl_conditioner *c)
{
    int dir;
    for (dir = 0; dir < 2; dir++) {
        const zl_conditioner_stats *s = zl_conditioner_get_stats(c, (zl_conditioner_dir)dir);
        uint64_t in = (uint64_t)s->seen + s->duplicated;
        uint64_t out = (uint64_t)s->delivered + s->queued + s->dropped_loss + s->dropped_burst +
                       s->dropped_bandwidth + s->dropped_pool + s->dropped_refused;
        ZL_CHECK_EQ(in, out);
    }
}

/* Both conditioners accounted for and empty at the end of a test. */
static void check_settled(void)
{
    int dir;
    check_accounting(&cond_a);
    check_accounting(&cond_b);
    for (dir = 0; dir < 2; dir++) {
        ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, (zl_conditioner_dir)dir)->queued, 0);
        ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_b, (zl_conditioner_dir)dir)->queued, 0);
        ZL_CHECK(zl_conditioner_next_due(&cond_a, (zl_conditioner_dir)dir) == UINT64_MAX);
        ZL_CHECK(zl_conditioner_next_due(&cond_b, (zl_conditioner_dir)dir) == UINT64_MAX);
    }
}

/* What B saw of a stream, measured from the payloads alone. */
typedef struct run_log {
    uint32_t send_again, send_failed;
    uint32_t received, copies, copies_retimed, out_of_order, corrupt;
    uint32_t high;
    int any;
    uint64_t last_arrival_us;
    uint32_t loss_runs, loss_run_total; /* runs of missing sequences */
    uint64_t delay_min, delay_max;
    double delay_sum, delay_sumsq;
    uint64_t window_lo, window_hi, window_bytes; /* bytes arriving in [lo, hi) */
    uint32_t window_count;
    uint64_t window_first_us, window_last_us;
    uint64_t hash;
    uint8_t seen[MAX_SEQ / 8];
} run_log;
static run_log lg;

/* Called before each datagram of a stream is sent; NULL for none. */
static void (*before_send)(uint32_t seq);
/* Called for each datagram B receives, with the time A sent it; NULL for
 * none. */
static void (*on_arrival)(uint32_t seq, uint64_t sent_us);

static void reset_log(void)
{
    memset(&lg, 0, sizeof lg);
    lg.delay_min = UINT64_MAX;
    lg.hash = UINT64_C(0xCBF29CE484222325);
    before_send = NULL;
    on_arrival = NULL;
}

static void put_u64(uint8_t *p, uint64_t v, int n)
{
    int i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p, int n)
{
    uint64_t v = 0;
    int i;
    for (i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void hash_u64(uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++) {
        lg.hash ^= (uint8_t)(v >> (8 * i));
        lg.hash *= UINT64_C(0x100000001B3); /* FNV-1a */
    }
}

static uint8_t fill_byte(uint32_t seq, size_t i) { return (uint8_t)(seq * 7u + i); }

static void send_one(uint32_t seq, size_t len)
{
    uint8_t buf[ZL_MAX_PACKET];
    size_t i;
    int r;
    put_u64(buf, seq, 4);
    put_u64(buf + 4, zl_test_time_us, 8);
    for (i = HEADER; i < len; i++)
        buf[i] = fill_byte(seq, i);
    r = hal_a.send(hal_a.ctx, &addr_b, buf, len);
    if (r == ZL_ERR_AGAIN)
        lg.send_again++;
    else if (r != ZL_OK)
        lg.send_failed++;
}

static void record(const uint8_t *buf, int len)
{
    uint32_t seq = (uint32_t)get_u64(buf, 4);
    uint64_t delay = zl_test_time_us - get_u64(buf + 4, 8);
    int i;
    for (i = HEADER; i < len; i++)
        if (buf[i] != fill_byte(seq, (size_t)i))
            lg.corrupt++;
    if (!ZL_CHECK(seq < MAX_SEQ))
        return;
    if (on_arrival)
        on_arrival(seq, zl_test_time_us - delay);
    lg.received++;
    if (delay < lg.delay_min)
        lg.delay_min = delay;
    if (delay > lg.delay_max)
        lg.delay_max = delay;
    lg.delay_sum += (double)delay;
    lg.delay_sumsq += (double)delay * (double)delay;
    if (lg.seen[seq / 8] & (1u << (seq % 8))) {
        lg.copies++;
        /* Kept in order, a copy arrives right behind its original. */
        if (zl_test_time_us != lg.last_arrival_us)
            lg.copies_retimed++;
    }
    lg.seen[seq / 8] = (uint8_t)(lg.seen[seq / 8] | (1u << (seq % 8)));
    if (lg.any && seq < lg.high) {
        lg.out_of_order++;
    } else {
        uint32_t expected = lg.any ? lg.high + 1u : 0u;
        if (seq > expected) {
            lg.loss_runs++;
            lg.loss_run_total += seq - expected;
        }
        if (!lg.any || seq > lg.high)
            lg.high = seq;
        lg.any = 1;
    }
    if (zl_test_time_us >= lg.window_lo && zl_test_time_us < lg.window_hi) {
        if (lg.window_count++ == 0)
            lg.window_first_us = zl_test_time_us;
        lg.window_last_us = zl_test_time_us;
        lg.window_bytes += (uint64_t)len;
    }
    hash_u64(seq);
    hash_u64(zl_test_time_us);
    hash_u64((uint64_t)len);
    lg.last_arrival_us = zl_test_time_us;
}

static void drain_b(void)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    int n;
    while ((n = hal_b.receive(hal_b.ctx, &from, buf, sizeof buf)) != ZL_ERR_AGAIN) {
        if (!ZL_CHECK(n >= HEADER))
            continue;
        ZL_CHECK(zl_addr_equal(&from, &addr_a));
        record(buf, n);
    }
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Sends count datagrams of len bytes from A every interval_us and runs the
 * clock from event to event until nothing is left in flight. */
static void run_stream(uint32_t count, uint64_t interval_us, size_t len)
{
    uint32_t sent = 0;
    uint64_t next_send = zl_test_time_us;
    for (;;) {
        uint64_t next = UINT64_MAX;
        while (sent < count && next_send <= zl_test_time_us) {
            if (before_send)
                before_send(sent);
            send_one(sent++, len);
            next_send += interval_us;
        }
        zl_conditioner_pump(&cond_a);
        drain_b();
        if (sent < count)
            next = next_send;
        next = min_u64(next, zl_conditioner_next_due(&cond_a, ZL_CONDITIONER_SEND));
        next = min_u64(next, zl_conditioner_next_due(&cond_b, ZL_CONDITIONER_RECEIVE));
        if (next == UINT64_MAX)
            break;
        if (!ZL_CHECK(next > zl_test_time_us)) /* an event in the past: no progress */
            break;
        zl_test_time_us = next;
    }
    if (lg.any && lg.high + 1u < count) { /* losses at the very end */
        lg.loss_runs++;
        lg.loss_run_total += count - 1u - lg.high;
    }
    ZL_CHECK_EQ(lg.corrupt, 0);
    ZL_CHECK_EQ(lg.send_failed, 0);
}

/* |got - n p| within SIGMAS binomial standard deviations (+1 for rounding). */
static int near_binomial(uint32_t got, uint32_t n, double p)
{
    double mean = n * p, sd = sqrt(n * p * (1.0 - p));
    return fabs((double)got - mean) <= SIGMAS * sd + 1.0;
}

static void test_pass_through_when_disabled(void)
{
    zl_conditioner_settings zero;
    const zl_conditioner_stats *sa, *sb;
    uint8_t buf[ZL_MAX_PACKET], small[8], rnd[4];
    uint8_t v6[16] = {0};
    zl_addr from, six = zl_addr_ipv6(v6, 1);
    int i, r;

    setup(1);
    memset(&zero, 0, sizeof zero);
    for (i = 1; i <= 6; i++) {
        if (i == 4) { /* enabled with every impairment at zero: the same */
            zero.enabled = 1;
            configure(&cond_a, ZL_CONDITIONER_SEND, &zero);
            configure(&cond_b, ZL_CONDITIONER_RECEIVE, &zero);
        }
        memset(buf, i, (size_t)i * 100);
        ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, buf, (size_t)i * 100), ZL_OK);
        memset(buf, 0, sizeof buf);
        r = hal_b.receive(hal_b.ctx, &from, buf, sizeof buf); /* no time passes */
        ZL_CHECK_EQ(r, i * 100);
        ZL_CHECK_EQ(buf[0], i);
        ZL_CHECK_EQ(buf[i * 100 - 1], i);
        ZL_CHECK(zl_addr_equal(&from, &addr_a));
    }
    ZL_CHECK_EQ(hal_b.receive(hal_b.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN);

    /* Bad lengths are refused before entering; the inner send's verdict on
     * an unreachable family comes back at once and is counted. */
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, buf, 0), ZL_ERR_INVALID);
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, buf, ZL_MAX_PACKET + 1), ZL_ERR_INVALID);
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &six, buf, 10), ZL_ERR_UNSUPPORTED);

    /* A caller buffer too small: truncated, counted, nothing written past. */
    memset(buf, 0xAB, 100);
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, buf, 100), ZL_OK);
    memset(small, 0, sizeof small);
    ZL_CHECK_EQ(hal_b.receive(hal_b.ctx, &from, small, 4), ZL_ERR_TRUNCATED);
    ZL_CHECK_EQ(small[4], 0);
    ZL_CHECK_EQ(hal_b.receive(hal_b.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN);

    sa = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    sb = zl_conditioner_get_stats(&cond_b, ZL_CONDITIONER_RECEIVE);
    ZL_CHECK_EQ(sa->seen, 8);
    ZL_CHECK_EQ(sa->delivered, 7);
    ZL_CHECK_EQ(sa->dropped_refused, 1);
    ZL_CHECK_EQ(sa->bytes_seen, 2100 + 10 + 100);
    ZL_CHECK_EQ(sa->bytes_delivered, 2100 + 100);
    ZL_CHECK_EQ(sa->delay_total_us, 0);
    ZL_CHECK_EQ(sb->seen, 7);
    ZL_CHECK_EQ(sb->delivered, 6);
    ZL_CHECK_EQ(sb->dropped_refused, 1);
    ZL_CHECK_EQ(sb->delay_total_us, 0);

    /* The clock and the random source pass straight through. */
    zl_test_time_us = 987654321u;
    ZL_CHECK_EQ(hal_a.now_us(hal_a.ctx), 987654321u);
    ZL_CHECK_EQ(hal_a.random(hal_a.ctx, rnd, sizeof rnd), ZL_OK);
    ZL_CHECK_EQ(rnd[3], 0x5A);
    check_settled();
}

static void test_latency_exact_each_direction(void)
{
    zl_conditioner_settings out, in;
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    uint64_t t0;

    setup(2);
    memset(&out, 0, sizeof out);
    memset(&in, 0, sizeof in);
    out.enabled = in.enabled = 1;
    out.latency_us = 30000;
    in.latency_us = 20000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &out);
    configure(&cond_b, ZL_CONDITIONER_RECEIVE, &in);

    t0 = zl_test_time_us;
    memset(buf, 1, 20);
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, buf, 20), ZL_OK);
    ZL_CHECK(zl_conditioner_next_due(&cond_a, ZL_CONDITIONER_SEND) == t0 + 30000);
    zl_test_time_us = t0 + 29999;
    ZL_CHECK_EQ(zl_conditioner_pump(&cond_a), 0);
    ZL_CHECK_EQ(hal_b.receive(hal_b.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN);
    zl_test_time_us = t0 + 30000;
    ZL_CHECK_EQ(zl_conditioner_pump(&cond_a), 1);
    ZL_CHECK_EQ(hal_b.receive(hal_b.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN); /* pulled */
    ZL_CHECK(zl_conditioner_next_due(&cond_b, ZL_CONDITIONER_RECEIVE) == t0 + 50000);
    zl_test_time_us = t0 + 49999;
    ZL_CHECK_EQ(hal_b.receive(hal_b.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN);
    zl_test_time_us = t0 + 50000;
    ZL_CHECK_EQ(hal_b.receive(hal_b.ctx, &from, buf, sizeof buf), 20);

    /* The other two directions are untouched: B -> A is immediate. */
    ZL_CHECK_EQ(hal_b.send(hal_b.ctx, &addr_a, buf, 20), ZL_OK);
    ZL_CHECK_EQ(hal_a.receive(hal_a.ctx, &from, buf, sizeof buf), 20);

    /* A stream: every datagram takes exactly 50 ms end to end. */
    reset_log();
    run_stream(500, 3000, 64);
    ZL_CHECK_EQ(lg.received, 500);
    ZL_CHECK_EQ(lg.delay_min, 50000);
    ZL_CHECK_EQ(lg.delay_max, 50000);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND)->delay_total_us,
                30000ull * 501);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_b, ZL_CONDITIONER_RECEIVE)->delay_total_us,
                20000ull * 501);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_RECEIVE)->delay_total_us, 0);
    check_settled();
}

static void test_jitter_bounds_and_spread(void)
{
    const uint32_t n = stream_len(4000);
    const double jitter = 20000.0, span = 2.0 * jitter;
    zl_conditioner_settings s;
    double mean, sd, want_sd;

    setup(3);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.latency_us = 50000;
    s.jitter_us = 20000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    /* 50 ms apart, more than the 40 ms spread, so keeping order never
     * holds a datagram back and the raw jitter is what B measures. */
    run_stream(n, 50000, 32);
    ZL_CHECK_EQ(lg.received, n);
    ZL_CHECK_EQ(lg.out_of_order, 0);
    mean = lg.delay_sum / n;
    sd = sqrt(lg.delay_sumsq / n - mean * mean);
    /* Uniform on the 2J + 1 integers around the latency: variance J(J+1)/3.
     * The sample mean has sd sigma / sqrt(n); the sample sd about
     * sigma * sqrt(0.8 / n) / 2 (fourth moment of a uniform, 9 sigma^4 / 5). */
    want_sd = sqrt(jitter * (jitter + 1.0) / 3.0);
    zl_test_note("delay mean %.0f us, sd %.0f us (uniform: %.0f), range %u..%u", mean, sd,
                 want_sd, (unsigned)lg.delay_min, (unsigned)lg.delay_max);
    ZL_CHECK(lg.delay_min >= 30000 && lg.delay_max <= 70000);
    ZL_CHECK(fabs(mean - 50000.0) <= SIGMAS * want_sd / sqrt((double)n));
    ZL_CHECK(fabs(sd - want_sd) <= SIGMAS * want_sd * sqrt(0.8 / n) / 2.0);
    /* Both ends of the range are reached: no draw falls in the outer 10/n
     * of the span with probability (1 - 10/n)^n < e^-10. */
    ZL_CHECK((double)lg.delay_min <= 30000.0 + span * 10.0 / n);
    ZL_CHECK((double)lg.delay_max >= 70000.0 - span * 10.0 / n);
    check_settled();
}

static void cut_latency_at_20(uint32_t seq)
{
    zl_conditioner_settings s;
    if (seq != 20)
        return;
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
}

static void test_order_kept_with_jitter(void)
{
    const uint32_t n = stream_len(5000);
    zl_conditioner_settings s;

    setup(4);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.latency_us = 50000;
    s.jitter_us = 20000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    run_stream(n, 2000, 32);
    zl_test_note("delay %u..%u us, in order", (unsigned)lg.delay_min, (unsigned)lg.delay_max);
    ZL_CHECK_EQ(lg.received, n);
    ZL_CHECK_EQ(lg.out_of_order, 0);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND)->reordered, 0);
    /* Holding a datagram for its predecessor never pushes it past the
     * latest due time already promised, so the bound stays 70 ms; and the
     * jitter really was there (without it every delay is 50 ms; a delay
     * over 60 ms is drawn with chance 1/4 per datagram). */
    ZL_CHECK(lg.delay_max <= 70000);
    ZL_CHECK(lg.delay_max > 60000);

    /* Cutting a 200 ms latency to zero mid-stream: the later datagrams wait
     * behind the earlier ones instead of overtaking them. */
    s.jitter_us = 0;
    s.latency_us = 200000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    before_send = cut_latency_at_20;
    run_stream(40, 1000, 32);
    ZL_CHECK_EQ(lg.received, 40);
    ZL_CHECK_EQ(lg.out_of_order, 0);
    ZL_CHECK_EQ(lg.delay_min, 180000); /* sent 20 ms after datagram 19, due with it */
    ZL_CHECK_EQ(lg.delay_max, 200000);
    check_settled();
}

static void test_reorder_rate(void)
{
    const uint32_t n = stream_len(20000);
    zl_conditioner_settings s;
    const zl_conditioner_stats *st;

    setup(5);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.latency_us = 20000;
    s.reorder_ppm = 100000;
    s.reorder_delay_us = 10000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    /* 1 ms apart, a held datagram (30 ms) is passed by any of the next 9
     * that is not held itself: overtaken with probability 1 - 0.1^9. */
    run_stream(n, 1000, 16);
    st = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    zl_test_note("%u of %u overtaken (%.2f %%)", (unsigned)lg.out_of_order, (unsigned)n,
                 100.0 * lg.out_of_order / n);
    ZL_CHECK_EQ(lg.received, n);
    ZL_CHECK_EQ(st->reordered, lg.out_of_order);
    ZL_CHECK(near_binomial(lg.out_of_order, n, 0.1));
    ZL_CHECK_EQ(lg.delay_min, 20000);
    ZL_CHECK_EQ(lg.delay_max, 30000);
    check_settled();

    /* Held back 5 ms but sent 10 ms apart: held, yet never overtaken, and
     * the counter reports what happened, not what was attempted. */
    setup(15);
    s.reorder_delay_us = 5000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    run_stream(stream_len(2000), 10000, 16);
    ZL_CHECK_EQ(lg.delay_max, 25000);
    ZL_CHECK_EQ(lg.out_of_order, 0);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND)->reordered, 0);
    check_settled();
}

static void test_uniform_loss_each_direction(void)
{
    const uint32_t n = stream_len(20000);
    zl_conditioner_settings out, in;
    const zl_conditioner_stats *sa, *sb;
    uint32_t lost_a, lost_b;

    setup(6);
    memset(&out, 0, sizeof out);
    memset(&in, 0, sizeof in);
    out.enabled = in.enabled = 1;
    out.loss_ppm = 100000; /* 10 % */
    in.loss_ppm = 50000;   /* 5 % of what is left */
    configure(&cond_a, ZL_CONDITIONER_SEND, &out);
    configure(&cond_b, ZL_CONDITIONER_RECEIVE, &in);
    reset_log();
    run_stream(n, 1000, 24);
    /* The network between the two conditioners counts what A let through. */
    lost_a = n - net.sent;
    lost_b = net.sent - lg.received;
    sa = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    sb = zl_conditioner_get_stats(&cond_b, ZL_CONDITIONER_RECEIVE);
    zl_test_note("lost %.2f %% sending (10), %.2f %% receiving (5)", 100.0 * lost_a / n,
                 100.0 * lost_b / net.sent);
    ZL_CHECK_EQ(sa->dropped_loss, lost_a);
    ZL_CHECK_EQ(sb->dropped_loss, lost_b);
    ZL_CHECK_EQ(sb->seen, net.sent);
    ZL_CHECK(near_binomial(lost_a, n, 0.10));
    ZL_CHECK(near_binomial(lost_b, net.sent, 0.05));
    ZL_CHECK_EQ(lg.out_of_order, 0);
    check_settled();
}

/* Gilbert-Elliott loss of n datagrams measured against the model: a two-state
 * Markov chain with switch chances a (good -> bad) and b (bad -> good) spends
 * pi = a / (a + b) of the time bad, so the loss is pi hb + (1 - pi) hg. Its
 * states are correlated with lag factor L = 1 - a - b, which widens the
 * variance of the mean loss to
 *   (E[h (1 - h)] + Var[h] (1 + L) / (1 - L)) / n,  Var[h] = pi (1 - pi) (hb - hg)^2. */
static void check_burst_model(double a, double b, double hg, double hb, uint32_t n,
                              uint32_t lost)
{
    double pi = a / (a + b), lag = 1.0 - a - b;
    double want = pi * hb + (1.0 - pi) * hg;
    double var = pi * hb * (1.0 - hb) + (1.0 - pi) * hg * (1.0 - hg) +
                 pi * (1.0 - pi) * (hb - hg) * (hb - hg) * (1.0 + lag) / (1.0 - lag);
    double got = (double)lost / n;
    zl_test_note("loss %.2f %% (model %.2f %%)", 100.0 * got, 100.0 * want);
    ZL_CHECK(fabs(got - want) <= SIGMAS * sqrt(var / n));
}

static void test_burst_loss(void)
{
    const uint32_t n = stream_len(40000);
    zl_conditioner_settings s;
    const zl_conditioner_stats *st;
    double mean_run, exit_p = 0.25;

    /* Every datagram lost in the bad state, none in the good one: a loss run
     * is a bad spell, geometric with mean 1 / exit = 4 and variance
     * (1 - exit) / exit^2 = 12. */
    setup(7);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.burst_enter_ppm = 10000;
    s.burst_exit_ppm = 250000;
    s.burst_loss_bad_ppm = ZL_CONDITIONER_PPM;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    run_stream(n, 1000, 16);
    st = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    ZL_CHECK_EQ(st->dropped_burst, n - lg.received);
    ZL_CHECK_EQ(lg.loss_run_total, n - lg.received);
    ZL_CHECK(lg.loss_runs > 0);
    /* Every bad spell is a run of losses B sees, but one entered by the
     * very last datagram. */
    ZL_CHECK(st->bursts == lg.loss_runs || st->bursts == lg.loss_runs + 1u);
    mean_run = lg.loss_runs ? (double)lg.loss_run_total / lg.loss_runs : 0.0;
    zl_test_note("%u bursts, mean length %.2f (model 4)", (unsigned)lg.loss_runs, mean_run);
    ZL_CHECK(fabs(mean_run - 1.0 / exit_p) <=
             SIGMAS * sqrt((1.0 - exit_p) / (exit_p * exit_p) / (lg.loss_runs ? lg.loss_runs : 1)));
    check_burst_model(0.01, 0.25, 0.0, 1.0, n, n - lg.received);
    check_settled();

    /* Bursts made to measure: a mean of 8 datagrams about every 500 ms on
     * a lane of 1000 a second. */
    setup(19);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    ZL_CHECK_EQ(zl_conditioner_bursts(&s, 8, 500000, 1000), ZL_OK);
    ZL_CHECK_EQ(s.burst_exit_ppm, 125000);
    ZL_CHECK_EQ(s.burst_enter_ppm, 1000000 / 492);
    ZL_CHECK_EQ(s.burst_loss_bad_ppm, ZL_CONDITIONER_PPM);
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    run_stream(n, 1000, 16);
    st = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    mean_run = st->bursts ? (double)st->dropped_burst / st->bursts : 0.0;
    zl_test_note("made to measure: %u bursts in %u s (model %u), mean length %.2f (model 8)",
                 (unsigned)st->bursts, (unsigned)(n / 1000u), (unsigned)(n / 500u), mean_run);
    ZL_CHECK(near_binomial(st->bursts, n, 1.0 / 500.0));
    ZL_CHECK(fabs(mean_run - 8.0) <= SIGMAS * sqrt(7.0 * 8.0 / (st->bursts ? st->bursts : 1)));
    check_settled();
    /* Refused: no mean, or bursts that would run into each other. */
    ZL_CHECK_EQ(zl_conditioner_bursts(&s, 0, 500000, 1000), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_conditioner_bursts(&s, 500, 500000, 1000), ZL_ERR_INVALID);
    ZL_CHECK_EQ(s.burst_exit_ppm, 125000);

    /* Partial loss in both states. */
    setup(8);
    s.burst_enter_ppm = 20000;
    s.burst_exit_ppm = 100000;
    s.burst_loss_good_ppm = 10000;
    s.burst_loss_bad_ppm = 500000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    run_stream(n, 1000, 16);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND)->dropped_burst,
                n - lg.received);
    check_burst_model(0.02, 0.10, 0.01, 0.5, n, n - lg.received);
    check_settled();
}

static void test_duplicates_all_delivered(void)
{
    const uint32_t n = stream_len(20000);
    zl_conditioner_settings s;
    const zl_conditioner_stats *st;

    setup(9);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.latency_us = 10000;
    s.jitter_us = 5000;
    s.duplicate_ppm = 50000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    run_stream(n, 2000, 40);
    st = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    zl_test_note("%u copies of %u (%.2f %%), %u arrived later than their original",
                 (unsigned)lg.copies, (unsigned)n, 100.0 * lg.copies / n,
                 (unsigned)lg.copies_retimed);
    ZL_CHECK_EQ(st->duplicated, lg.copies);
    ZL_CHECK_EQ(lg.received, n + lg.copies);
    ZL_CHECK(near_binomial(lg.copies, n, 0.05));
    ZL_CHECK(lg.copies_retimed > 0); /* each copy has its own delay */
    ZL_CHECK_EQ(lg.out_of_order, 0);
    check_settled();
}

static void test_bandwidth_cap(void)
{
    const uint32_t cap = 12345, per_packet_us = 100u * 1000000u / 12345u; /* 8100 */
    zl_conditioner_settings s;
    const zl_conditioner_stats *st;

    setup(10);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.bandwidth_bytes_per_s = cap;
    s.bandwidth_queue_us = 50000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);

    /* Below the cap (10000 B/s) nothing waits: each 100-byte datagram takes
     * its serialisation time, floor(100 * 10^6 / 12345) us, and none drops. */
    reset_log();
    run_stream(200, 10000, 100);
    ZL_CHECK_EQ(lg.received, 200);
    ZL_CHECK_EQ(lg.delay_min, per_packet_us);
    ZL_CHECK_EQ(lg.delay_max, per_packet_us);

    /* Offered 20000 B/s for 3 s: a saturated link delivers cap bytes in any
     * second, give or take the one datagram that straddles each edge. */
    setup(10);
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    reset_log();
    lg.window_lo = START_US + 1000000u;
    lg.window_hi = START_US + 2000000u;
    run_stream(600, 5000, 100);
    st = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    zl_test_note("%u B in one second (cap %u B/s), %u of 600 dropped, delay up to %u us",
                 (unsigned)lg.window_bytes, (unsigned)cap, (unsigned)st->dropped_bandwidth,
                 (unsigned)lg.delay_max);
    ZL_CHECK(lg.window_bytes + 100 >= cap && lg.window_bytes <= cap + 100);
    /* Back to back, datagrams leave exactly 100 * 10^6 / 12345 us apart:
     * the fractions carry over instead of being rounded away each time. */
    ZL_CHECK(lg.window_count > 100);
    ZL_CHECK(fabs((double)(lg.window_last_us - lg.window_first_us) -
                  (lg.window_count - 1) * (100.0 * 1e6 / cap)) <= 1.0);
    ZL_CHECK_EQ(st->dropped_bandwidth, 600 - lg.received);
    /* About 1 - 12345/20000 = 38 % of the offered load cannot fit. */
    ZL_CHECK(st->dropped_bandwidth > 200 && st->dropped_bandwidth < 260);
    ZL_CHECK(lg.delay_max <= 50000 + per_packet_us + 1);
    ZL_CHECK(lg.delay_max > 50000 - per_packet_us); /* the queue really filled */
    ZL_CHECK_EQ(lg.out_of_order, 0);
    check_settled();
}

static void test_pool_exhaustion_counted(void)
{
    const uint32_t n = ZL_CONDITIONER_PACKETS + 10;
    const uint32_t held_out = ZL_CONDITIONER_PACKETS - ZL_CONDITIONER_PACKETS / 8u;
    zl_conditioner_settings slow;
    const zl_conditioner_stats *st;
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    uint32_t i, got;

    memset(&slow, 0, sizeof slow);
    slow.enabled = 1;
    slow.latency_us = 1000000;

    /* Sending: 1 s of delay at 1 ms spacing needs more than the pool. */
    setup(11);
    configure(&cond_a, ZL_CONDITIONER_SEND, &slow);
    reset_log();
    run_stream(n, 1000, 16);
    st = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    ZL_CHECK_EQ(lg.send_again, 10);
    ZL_CHECK_EQ(st->dropped_pool, 10);
    ZL_CHECK_EQ(lg.received, ZL_CONDITIONER_PACKETS);
    check_settled();

    /* Receiving: the same on B's side. */
    setup(12);
    configure(&cond_b, ZL_CONDITIONER_RECEIVE, &slow);
    reset_log();
    run_stream(n, 1000, 16);
    ZL_CHECK_EQ(lg.send_again, 0);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_b, ZL_CONDITIONER_RECEIVE)->dropped_pool, 10);
    ZL_CHECK_EQ(lg.received, ZL_CONDITIONER_PACKETS);
    check_settled();

    /* One pool serves both directions: A holds 7/8 of it outgoing, so only
     * the rest is left for what B sends back, 4 more than fit. */
    setup(13);
    configure(&cond_a, ZL_CONDITIONER_SEND, &slow);
    configure(&cond_a, ZL_CONDITIONER_RECEIVE, &slow);
    memset(buf, 3, 16);
    for (i = 0; i < held_out; i++)
        ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, buf, 16), ZL_OK);
    for (i = 0; i < ZL_CONDITIONER_PACKETS - held_out + 4u; i++)
        ZL_CHECK_EQ(hal_b.send(hal_b.ctx, &addr_a, buf, 16), ZL_OK);
    ZL_CHECK_EQ(hal_a.receive(hal_a.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN);
    st = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_RECEIVE);
    ZL_CHECK_EQ(st->queued, ZL_CONDITIONER_PACKETS - held_out);
    ZL_CHECK_EQ(st->dropped_pool, 4);
    check_accounting(&cond_a);
    /* A second later everything held is released and the pool is whole. */
    zl_test_time_us += 1000000;
    got = 0;
    while (hal_a.receive(hal_a.ctx, &from, buf, sizeof buf) == 16)
        got++;
    ZL_CHECK_EQ(got, ZL_CONDITIONER_PACKETS - held_out);
    /* A's held ones reach the network (only ZL_LOOPNET_PACKETS fit in it;
     * the rest are refused there and counted, not lost). */
    st = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    ZL_CHECK_EQ(st->delivered + st->dropped_refused, held_out);
    ZL_CHECK_EQ(st->delivered, ZL_LOOPNET_PACKETS);
    while (hal_b.receive(hal_b.ctx, &from, buf, sizeof buf) == 16)
        ;
    for (i = 0; i < ZL_CONDITIONER_PACKETS; i++)
        ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, buf, 16), ZL_OK);
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, buf, 16), ZL_ERR_AGAIN);
    check_accounting(&cond_a);
    check_accounting(&cond_b);
}

/* Lag spikes as B sees them: every datagram arrives exactly when the
 * conditioner's schedule says, either after its latency or, when that
 * falls inside a spike, at the spike's end. */
#define SPIKE_WINDOWS 64
static struct spike_log {
    const zl_conditioner *cond;
    zl_conditioner_dir dir;
    uint32_t latency_us, spike_us;
    uint32_t held, wrong_time;
    uint32_t windows;                     /* spikes that held any */
    uint64_t last_start;
    uint32_t per_window[SPIKE_WINDOWS];   /* datagrams each one held */
} sp;

static void spike_watch(const zl_conditioner *c, zl_conditioner_dir dir,
                        const zl_conditioner_settings *s)
{
    memset(&sp, 0, sizeof sp);
    sp.cond = c;
    sp.dir = dir;
    sp.latency_us = s->latency_us;
    sp.spike_us = s->spike_us;
    sp.last_start = UINT64_MAX;
}

/* The spike that freezes a datagram due at `due`, or UINT64_MAX. */
static uint64_t spike_over(uint64_t due)
{
    uint64_t start = zl_conditioner_next_spike(sp.cond, sp.dir, due);
    return start <= due ? start : UINT64_MAX;
}

static void spike_arrival(uint32_t seq, uint64_t sent_us)
{
    uint64_t due = sent_us + sp.latency_us, start = spike_over(due);
    (void)seq;
    if (start != UINT64_MAX) {
        due = start + sp.spike_us;
        sp.held++;
        if (start != sp.last_start) {
            sp.last_start = start;
            sp.windows++;
        }
        if (sp.windows <= SPIKE_WINDOWS)
            sp.per_window[sp.windows - 1]++;
    }
    sp.wrong_time += zl_test_time_us != due;
}

static void test_lag_spikes(void)
{
    const uint32_t n = stream_len(2000);
    zl_conditioner_settings s;
    const zl_conditioner_stats *st;
    uint64_t phase_a, phase_b, first;
    uint32_t i, full = 0;

    /* Sending: 20 ms of latency, a 30 ms spike every 100 ms, a datagram
     * every millisecond. */
    setup(16);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.latency_us = 20000;
    s.spike_every_us = 100000;
    s.spike_us = 30000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    configure(&cond_a, ZL_CONDITIONER_RECEIVE, &s);
    configure(&cond_b, ZL_CONDITIONER_SEND, &s);
    /* One seed freezes both directions at once; another seed elsewhere. */
    first = zl_conditioner_next_spike(&cond_a, ZL_CONDITIONER_SEND, zl_test_time_us);
    phase_a = first % 100000u;
    phase_b = zl_conditioner_next_spike(&cond_b, ZL_CONDITIONER_SEND, zl_test_time_us) % 100000u;
    ZL_CHECK(first >= zl_test_time_us - 30000u && first < zl_test_time_us + 100000u);
    ZL_CHECK(first == zl_conditioner_next_spike(&cond_a, ZL_CONDITIONER_RECEIVE, zl_test_time_us));
    ZL_CHECK(phase_a != phase_b);
    /* In progress: the start it reports is at or before now, and the next
     * one follows one period later. */
    ZL_CHECK(zl_conditioner_next_spike(&cond_a, ZL_CONDITIONER_SEND, first + 29999u) == first);
    ZL_CHECK(zl_conditioner_next_spike(&cond_a, ZL_CONDITIONER_SEND, first + 30000u) ==
             first + 100000u);
    ZL_CHECK(zl_conditioner_next_spike(&cond_a, ZL_CONDITIONER_SEND, 0) == phase_a);
    reset_log();
    spike_watch(&cond_a, ZL_CONDITIONER_SEND, &s);
    on_arrival = spike_arrival;
    run_stream(n, 1000, 16);
    st = zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    /* A 30 ms spike over due times 1 ms apart holds exactly 30 of them;
     * only the spikes at either end of the stream may hold fewer. */
    for (i = 0; i < sp.windows && i < SPIKE_WINDOWS; i++)
        full += sp.per_window[i] == 30u;
    zl_test_note("%u spikes held %u of %u datagrams (%u held 30), delay %u..%u us",
                 (unsigned)st->spikes, (unsigned)st->spiked, (unsigned)n, (unsigned)full,
                 (unsigned)lg.delay_min, (unsigned)lg.delay_max);
    ZL_CHECK_EQ(lg.received, n);
    ZL_CHECK_EQ(lg.out_of_order, 0);
    ZL_CHECK_EQ(sp.wrong_time, 0); /* each held one came out at its spike's end */
    ZL_CHECK_EQ(st->spiked, sp.held);
    ZL_CHECK_EQ(st->spikes, sp.windows);
    ZL_CHECK(sp.windows >= n / 100u - 1u && sp.windows <= n / 100u + 1u);
    ZL_CHECK(full + 2u >= sp.windows);
    ZL_CHECK_EQ(lg.delay_min, 20000);
    /* Due just as a spike began: up to 30 ms more (due times fall on whole
     * milliseconds, the spike anywhere). */
    ZL_CHECK(lg.delay_max <= 50000 && lg.delay_max > 49000);
    ZL_CHECK(st->delay_total_us == (uint64_t)lg.delay_sum);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_RECEIVE)->spiked, 0);
    check_settled();

    /* The same seed, the same moments. */
    setup(16);
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    ZL_CHECK(zl_conditioner_next_spike(&cond_a, ZL_CONDITIONER_SEND, zl_test_time_us) == first);

    /* Receiving: timed from the receive call that pulled the datagram. */
    setup(17);
    s.latency_us = 0;
    s.spike_every_us = 50000;
    s.spike_us = 10000;
    configure(&cond_b, ZL_CONDITIONER_RECEIVE, &s);
    reset_log();
    spike_watch(&cond_b, ZL_CONDITIONER_RECEIVE, &s);
    on_arrival = spike_arrival;
    run_stream(n, 1000, 16);
    st = zl_conditioner_get_stats(&cond_b, ZL_CONDITIONER_RECEIVE);
    zl_test_note("receiving: %u spikes held %u of %u", (unsigned)st->spikes,
                 (unsigned)st->spiked, (unsigned)n);
    ZL_CHECK_EQ(lg.received, n);
    ZL_CHECK_EQ(sp.wrong_time, 0);
    ZL_CHECK_EQ(st->spiked, sp.held);
    ZL_CHECK_EQ(st->spikes, sp.windows);
    ZL_CHECK(sp.held >= (n / 50u - 1u) * 10u);
    ZL_CHECK(lg.delay_max <= 10000 && lg.delay_max > 9000);
    check_settled();
}

/* A spike longer than the pool can hold: each datagram that enters while
 * the pool is full is dropped and counted, the rest come out at the end.
 * Receiving, so the release goes to the caller, not into the loop network
 * (which holds fewer than the pool). */
static void test_lag_spike_fills_pool(void)
{
    const uint32_t extra = 40, spike_ms = ZL_CONDITIONER_PACKETS + 40;
    const uint32_t n = 3u * 2u * spike_ms; /* three periods */
    zl_conditioner_settings s;
    const zl_conditioner_stats *st;
    uint32_t k, in_window = 0, want_dropped = 0, count = 0;
    uint64_t window = UINT64_MAX;

    setup(18);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.spike_us = spike_ms * 1000u;
    s.spike_every_us = 2u * s.spike_us;
    configure(&cond_b, ZL_CONDITIONER_RECEIVE, &s);
    /* What the schedule predicts: the datagrams sent inside each spike, of
     * which all beyond the pool's size are dropped (nothing else waits). */
    spike_watch(&cond_b, ZL_CONDITIONER_RECEIVE, &s);
    for (k = 0; k <= n; k++) {
        uint64_t start = k < n ? spike_over(zl_test_time_us + (uint64_t)k * 1000u) : UINT64_MAX;
        if (start != window) {
            if (count > ZL_CONDITIONER_PACKETS)
                want_dropped += count - ZL_CONDITIONER_PACKETS;
            window = start;
            count = 0;
        }
        if (start != UINT64_MAX) {
            count++;
            in_window++;
        }
    }
    reset_log();
    on_arrival = spike_arrival;
    run_stream(n, 1000, 16);
    st = zl_conditioner_get_stats(&cond_b, ZL_CONDITIONER_RECEIVE);
    zl_test_note("%u ms spikes, pool of %u: %u sent inside them, %u held, %u dropped",
                 (unsigned)spike_ms, (unsigned)ZL_CONDITIONER_PACKETS, (unsigned)in_window,
                 (unsigned)st->spiked, (unsigned)st->dropped_pool);
    ZL_CHECK(want_dropped >= 2u * extra); /* at least two whole spikes */
    ZL_CHECK_EQ(st->dropped_pool, want_dropped);
    ZL_CHECK_EQ(st->seen, n);
    ZL_CHECK_EQ(st->spiked, in_window - want_dropped);
    ZL_CHECK_EQ(sp.held, st->spiked);
    ZL_CHECK_EQ(sp.wrong_time, 0);
    ZL_CHECK_EQ(lg.received, n - want_dropped);
    check_settled();
}

/* Every impairment on, both conditioners; returns the hash of B's log. */
static uint64_t run_everything(uint64_t seed, zl_conditioner_stats *out_stats)
{
    zl_conditioner_settings s;
    setup(seed);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.latency_us = 40000;
    s.jitter_us = 15000;
    s.loss_ppm = 30000;
    s.burst_enter_ppm = 10000;
    s.burst_exit_ppm = 300000;
    s.burst_loss_bad_ppm = 800000;
    s.duplicate_ppm = 30000;
    s.reorder_ppm = 50000;
    s.reorder_delay_us = 8000;
    s.bandwidth_bytes_per_s = 30000; /* 40 B every 1 ms offers 40000 B/s */
    s.bandwidth_queue_us = 20000;
    s.spike_every_us = 700000;
    s.spike_us = 60000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.latency_us = 10000;
    s.jitter_us = 5000;
    s.loss_ppm = 20000;
    s.duplicate_ppm = 20000;
    s.reorder_ppm = 20000;
    s.reorder_delay_us = 3000;
    configure(&cond_b, ZL_CONDITIONER_RECEIVE, &s);
    reset_log();
    run_stream(3000, 1000, 40);
    *out_stats = *zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND);
    check_settled();
    return lg.hash;
}

static void test_same_seed_same_log(void)
{
    zl_conditioner_stats first, again, other;
    uint64_t h1 = run_everything(42, &first);
    uint32_t received = lg.received;
    uint64_t h2 = run_everything(42, &again);
    uint64_t h3 = run_everything(43, &other);
    zl_test_note("%u delivered, hash %x%08x", (unsigned)received, (unsigned)(h1 >> 32),
                 (unsigned)h1);
    ZL_CHECK(h1 == h2);
    ZL_CHECK(memcmp(&first, &again, sizeof first) == 0);
    ZL_CHECK(h1 != h3);
    /* The scenario exercised every impairment. */
    ZL_CHECK(first.dropped_loss > 0 && first.dropped_burst > 0 && first.dropped_bandwidth > 0);
    ZL_CHECK(first.duplicated > 0 && first.reordered > 0);
    ZL_CHECK(first.spikes >= 3 && first.spiked > first.spikes);
    ZL_CHECK(received > 1000);
}

static void test_settings_checked(void)
{
    zl_conditioner_settings s, bad;
    uint8_t byte = 1;

    setup(14);
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.latency_us = 5000;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    bad = s;
    bad.latency_us = 0;
    bad.loss_ppm = ZL_CONDITIONER_PPM + 1;
    ZL_CHECK_EQ(zl_conditioner_configure(&cond_a, ZL_CONDITIONER_SEND, &bad), ZL_ERR_INVALID);
    bad.loss_ppm = 0;
    bad.jitter_us = ZL_CONDITIONER_MAX_US + 1u;
    ZL_CHECK_EQ(zl_conditioner_configure(&cond_a, ZL_CONDITIONER_SEND, &bad), ZL_ERR_INVALID);
    bad.jitter_us = 0;
    bad.reorder_ppm = 2000000;
    ZL_CHECK_EQ(zl_conditioner_configure(&cond_a, ZL_CONDITIONER_SEND, &bad), ZL_ERR_INVALID);
    bad.reorder_ppm = 0;
    bad.spike_every_us = 100000;
    bad.spike_us = 100000; /* a link that never thaws */
    ZL_CHECK_EQ(zl_conditioner_configure(&cond_a, ZL_CONDITIONER_SEND, &bad), ZL_ERR_INVALID);
    bad.spike_every_us = 0; /* a spike without a period */
    bad.spike_us = 1000;
    ZL_CHECK_EQ(zl_conditioner_configure(&cond_a, ZL_CONDITIONER_SEND, &bad), ZL_ERR_INVALID);
    bad.spike_every_us = ZL_CONDITIONER_MAX_US + 1u;
    ZL_CHECK_EQ(zl_conditioner_configure(&cond_a, ZL_CONDITIONER_SEND, &bad), ZL_ERR_INVALID);
    /* No spikes, no schedule. */
    ZL_CHECK(zl_conditioner_next_spike(&cond_a, ZL_CONDITIONER_SEND, 0) == UINT64_MAX);
    /* Refused settings changed nothing: the 5 ms latency still holds. */
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, &byte, 1), ZL_OK);
    ZL_CHECK(zl_conditioner_next_due(&cond_a, ZL_CONDITIONER_SEND) == zl_test_time_us + 5000);

    /* The extremes are valid: certain loss drops everything. */
    s.loss_ppm = ZL_CONDITIONER_PPM;
    s.jitter_us = ZL_CONDITIONER_MAX_US;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, &byte, 1), ZL_OK);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND)->dropped_loss, 1);
    zl_test_time_us += 5000;
    ZL_CHECK_EQ(zl_conditioner_pump(&cond_a), 1);

    /* New settings restart the burst model good: a lane stuck bad (no way
     * out) loses everything until it is configured again. */
    memset(&s, 0, sizeof s);
    s.enabled = 1;
    s.burst_enter_ppm = ZL_CONDITIONER_PPM;
    s.burst_loss_bad_ppm = ZL_CONDITIONER_PPM;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, &byte, 1), ZL_OK); /* enters bad */
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, &byte, 1), ZL_OK); /* lost */
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND)->dropped_burst, 1);
    s.burst_enter_ppm = 0;
    configure(&cond_a, ZL_CONDITIONER_SEND, &s);
    ZL_CHECK_EQ(hal_a.send(hal_a.ctx, &addr_b, &byte, 1), ZL_OK);
    ZL_CHECK_EQ(zl_conditioner_get_stats(&cond_a, ZL_CONDITIONER_SEND)->dropped_burst, 1);
    check_accounting(&cond_a);
}

void zl_suite_conditioner(void)
{
    ZL_RUN(test_pass_through_when_disabled);
    ZL_RUN(test_latency_exact_each_direction);
    ZL_RUN(test_jitter_bounds_and_spread);
    ZL_RUN(test_order_kept_with_jitter);
    ZL_RUN(test_reorder_rate);
    ZL_RUN(test_uniform_loss_each_direction);
    ZL_RUN(test_burst_loss);
    ZL_RUN(test_duplicates_all_delivered);
    ZL_RUN(test_bandwidth_cap);
    ZL_RUN(test_pool_exhaustion_counted);
    ZL_RUN(test_lag_spikes);
    ZL_RUN(test_lag_spike_fills_pool);
    ZL_RUN(test_same_seed_same_log);
    ZL_RUN(test_settings_checked);
}
