/* hal_conformance.c - the contract of zl_platform.h and zl_port.h, checked on
 * whichever port is built. Every port must pass it; sockets stay on loopback. */
#include <string.h>

#include "zl_port.h"
#include "zl_test.h"
#include "zl_test_port.h"

/* Loopback delivery is immediate on most systems but not promised, so a
 * datagram already sent is polled for up to this long before giving up. */
#define DELIVERY_WAIT_US 2000000u
/* How long the refused-port test keeps watching for a stray error. */
#define ERROR_WATCH_US 50000u

/* Ports live in static storage: a zl_port may be large on some ports, and
 * bare-metal stacks are small. */
static zl_port port_a, port_b, port_c;

typedef struct endpoint {
    zl_platform hal;
    zl_addr addr; /* bound address, with the port the system chose */
} endpoint;

/* Opens an endpoint on the loopback of `family`. Returns ZL_OK, or an error
 * after failing a check; for IPv6 only, ZL_ERR_UNSUPPORTED after a note when
 * the port has no IPv6 or the host has no ::1 (as in many containers). */
static int open_endpoint(endpoint *e, zl_port *port, int family)
{
    zl_addr bind_addr;
    int r = zl_test_port_loopback(family, &bind_addr);
    if (r == ZL_ERR_UNSUPPORTED && family == ZL_ADDR_IPV6) {
        zl_test_note("IPv6: not offered by this port, skipped");
        return r;
    }
    if (!ZL_CHECK_EQ(r, ZL_OK)) /* every port carries IPv4 */
        return r;
    ZL_CHECK_EQ(bind_addr.family, family);
    r = zl_port_open(port, &bind_addr, &e->hal);
    if (family == ZL_ADDR_IPV6 && (r == ZL_ERR_UNSUPPORTED || r == ZL_ERR_ADDRESS)) {
        zl_test_note("IPv6 loopback unavailable on this host (%s), skipped", zl_strerror(r));
        return ZL_ERR_UNSUPPORTED;
    }
    if (!ZL_CHECK_EQ(r, ZL_OK))
        return r;
    r = zl_port_local_addr(port, &e->addr);
    ZL_CHECK_EQ(r, ZL_OK);
    ZL_CHECK_EQ(e->addr.family, family);
    ZL_CHECK(memcmp(e->addr.ip, bind_addr.ip, sizeof bind_addr.ip) == 0);
    ZL_CHECK(e->addr.port != 0); /* an ephemeral port was assigned */
    return ZL_OK;
}

/* Opens two endpoints a and b of one family. ZL_OK or a skip/failure code. */
static int open_pair(endpoint *a, endpoint *b, int family)
{
    int r = open_endpoint(a, &port_a, family);
    if (r != ZL_OK)
        return r;
    r = open_endpoint(b, &port_b, family);
    if (r != ZL_OK) {
        zl_port_close(&port_a);
        return r;
    }
    return ZL_OK;
}

static void close_pair(void)
{
    zl_port_close(&port_a);
    zl_port_close(&port_b);
}

/* Receives one datagram, polling while the answer is ZL_ERR_AGAIN for at
 * most DELIVERY_WAIT_US. Returns what the last receive returned. */
static int receive_wait(const endpoint *e, zl_addr *from, void *buf, size_t cap)
{
    uint64_t start = e->hal.now_us(e->hal.ctx);
    for (;;) {
        int r = e->hal.receive(e->hal.ctx, from, buf, cap);
        if (r != ZL_ERR_AGAIN || e->hal.now_us(e->hal.ctx) - start > DELIVERY_WAIT_US)
            return r;
    }
}

static void fill_pattern(uint8_t *p, size_t len, zl_test_rng *rng)
{
    size_t i;
    for (i = 0; i < len; i++)
        p[i] = (uint8_t)zl_test_rng_u32(rng);
}

static void test_clock_advances(void)
{
    zl_platform hal;
    uint64_t t0, prev, now = 0;
    long calls, limit = ZL_TEST_ITERATIONS(50000000L);
    int backwards = 0;
    zl_port_clock_only(&hal);
    t0 = hal.now_us(hal.ctx);
    prev = t0;
    /* Busy-wait until the clock moves; bounded so a stuck clock fails
     * instead of hanging, with no assumption about its resolution. */
    for (calls = 1; calls <= limit; calls++) {
        now = hal.now_us(hal.ctx);
        if (now < prev)
            backwards++;
        prev = now;
        if (now > t0)
            break;
    }
    ZL_CHECK(now > t0);
    ZL_CHECK_EQ(backwards, 0);
    zl_test_note("clock moved by %u us after %ld reads", (unsigned)(now - t0), calls);

    /* Monotonic over many reads (a wall clock stepped by NTP would not be). */
    for (calls = 0; calls < ZL_TEST_ITERATIONS(200000L); calls++) {
        now = hal.now_us(hal.ctx);
        if (now < prev)
            backwards++;
        prev = now;
    }
    ZL_CHECK_EQ(backwards, 0);
}

static void test_clock_only_has_no_network(void)
{
    zl_platform hal;
    zl_addr any = zl_addr_ipv4(127, 0, 0, 1, 9);
    zl_addr from;
    uint8_t byte = 1, buf[8];
    zl_port_clock_only(&hal);
    ZL_CHECK_EQ(hal.send(hal.ctx, &any, &byte, 1), ZL_ERR_UNSUPPORTED);
    ZL_CHECK_EQ(hal.receive(hal.ctx, &from, buf, sizeof buf), ZL_ERR_UNSUPPORTED);
    ZL_CHECK_EQ(hal.random(hal.ctx, buf, sizeof buf), ZL_OK);
}

static void test_random_differs(void)
{
    zl_platform hal;
    uint8_t a[16], b[16], big[1000 + 8];
    int seen[256];
    int i, distinct = 0, a_zero = 1;
    zl_port_clock_only(&hal);
    ZL_CHECK_EQ(hal.random(hal.ctx, a, sizeof a), ZL_OK);
    ZL_CHECK_EQ(hal.random(hal.ctx, b, sizeof b), ZL_OK);
    ZL_CHECK(memcmp(a, b, sizeof a) != 0); /* 2^-128 chance of a false failure */
    for (i = 0; i < 16; i++)
        a_zero &= a[i] == 0;
    ZL_CHECK(!a_zero);
    ZL_CHECK_EQ(hal.random(hal.ctx, a, 0), ZL_OK);

    /* A long request is filled completely and not one byte further: 1000
     * uniform bytes show about 251 distinct values; a source that fills
     * only a prefix shows far fewer. */
    memset(big, 0xA5, sizeof big);
    ZL_CHECK_EQ(hal.random(hal.ctx, big, 1000), ZL_OK);
    memset(seen, 0, sizeof seen);
    for (i = 0; i < 1000; i++) {
        distinct += !seen[big[i]];
        seen[big[i]] = 1;
    }
    ZL_CHECK(distinct >= 200);
    for (i = 1000; i < (int)sizeof big; i++)
        ZL_CHECK_EQ(big[i], 0xA5);
    zl_test_note("1000 random bytes took %d distinct values", distinct);
}

static void round_trip(int family)
{
    endpoint a, b;
    zl_test_rng rng;
    uint8_t out[300], in[ZL_MAX_PACKET];
    zl_addr from;
    int r;
    if (open_pair(&a, &b, family) != ZL_OK)
        return;
    zl_test_rng_seed(&rng, (uint64_t)family);
    fill_pattern(out, sizeof out, &rng);

    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, out, sizeof out), ZL_OK);
    memset(&from, 0, sizeof from);
    r = receive_wait(&b, &from, in, sizeof in);
    ZL_CHECK_EQ(r, (int)sizeof out);
    ZL_CHECK(r == (int)sizeof out && memcmp(in, out, sizeof out) == 0);
    ZL_CHECK(zl_addr_equal(&from, &a.addr)); /* the sender's bound address */

    /* And back, replying to the address the datagram came from. */
    ZL_CHECK_EQ(b.hal.send(b.hal.ctx, &from, out, 1), ZL_OK);
    r = receive_wait(&a, &from, in, sizeof in);
    ZL_CHECK_EQ(r, 1);
    ZL_CHECK_EQ(in[0], out[0]);
    ZL_CHECK(zl_addr_equal(&from, &b.addr));

    /* Nothing else arrived. */
    ZL_CHECK_EQ(a.hal.receive(a.hal.ctx, &from, in, sizeof in), ZL_ERR_AGAIN);
    ZL_CHECK_EQ(b.hal.receive(b.hal.ctx, &from, in, sizeof in), ZL_ERR_AGAIN);
    close_pair();
    zl_test_note("%s loopback: datagrams exchanged", family == ZL_ADDR_IPV6 ? "IPv6" : "IPv4");
}

static void test_round_trip_ipv4(void)
{
    round_trip(ZL_ADDR_IPV4);
}

static void test_round_trip_ipv6(void)
{
    round_trip(ZL_ADDR_IPV6);
}

static void test_receive_empty_is_again(void)
{
    endpoint a;
    zl_addr from;
    uint8_t buf[32];
    int i;
    if (open_endpoint(&a, &port_a, ZL_ADDR_IPV4) != ZL_OK)
        return;
    memset(buf, 0x5A, sizeof buf);
    /* Returns at once, every time: a blocking socket would hang here. */
    for (i = 0; i < 3; i++)
        ZL_CHECK_EQ(a.hal.receive(a.hal.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN);
    for (i = 0; i < (int)sizeof buf; i++)
        ZL_CHECK_EQ(buf[i], 0x5A);
    zl_port_close(&port_a);
}

#ifdef ZL_PORT_RECEIVE_BUFFER
/* A port that asks for a receive buffer reports what the OS granted; a
 * burst of 1,000 full-size datagrams sent at once (over 1 MB with the
 * kernel's bookkeeping, several times the usual default) all arrive. */
static void test_receive_buffer(void)
{
    static uint8_t data[ZL_MAX_PACKET], buf[ZL_MAX_PACKET];
    endpoint a, b;
    zl_addr from;
    int granted, i, sent = 0, got = 0;
    if (open_pair(&a, &b, ZL_ADDR_IPV4) != ZL_OK)
        return;
    granted = zl_port_receive_buffer(&port_b);
    zl_test_note("receive buffer: asked %lu bytes, granted %d", (unsigned long)ZL_PORT_RECEIVE_BUFFER,
                 granted);
    ZL_CHECK(granted > 0);
    memset(data, 0xA5, sizeof data);
    for (i = 0; i < 1000; i++)
        sent += a.hal.send(a.hal.ctx, &b.addr, data, sizeof data) == ZL_OK;
    while (b.hal.receive(b.hal.ctx, &from, buf, sizeof buf) == (int)sizeof buf)
        got++;
    zl_test_note("1000 datagrams of %d bytes at once: %d sent, %d received", ZL_MAX_PACKET, sent,
                 got);
    if (granted >= (int)ZL_PORT_RECEIVE_BUFFER)
        ZL_CHECK_EQ(got, sent);
    close_pair();
    ZL_CHECK_EQ(zl_port_receive_buffer(&port_b), ZL_ERR_INVALID);
}
#endif

static void test_truncated_datagram(void)
{
    enum { CAP = 10, GUARD = 16 };
    endpoint a, b;
    zl_test_rng rng;
    uint8_t out[ZL_MAX_PACKET], in[ZL_MAX_PACKET + 64];
    zl_addr from;
    int i;
    if (open_pair(&a, &b, ZL_ADDR_IPV4) != ZL_OK)
        return;
    zl_test_rng_seed(&rng, 99);
    fill_pattern(out, sizeof out, &rng);

    /* Larger than the buffer: reported, consumed, and nothing written past
     * cap (the bytes a careless copy would touch first are guarded). */
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, out, 64), ZL_OK);
    memset(in, 0xA5, sizeof in);
    ZL_CHECK_EQ(receive_wait(&b, &from, in, CAP), ZL_ERR_TRUNCATED);
    for (i = CAP; i < CAP + GUARD; i++)
        ZL_CHECK_EQ(in[i], 0xA5);
    ZL_CHECK_EQ(b.hal.receive(b.hal.ctx, &from, in, sizeof in), ZL_ERR_AGAIN);

    /* cap 0 cannot hold even one byte. */
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, out, 1), ZL_OK);
    memset(in, 0xA5, sizeof in);
    ZL_CHECK_EQ(receive_wait(&b, &from, in, 0), ZL_ERR_TRUNCATED);
    ZL_CHECK_EQ(in[0], 0xA5);

    /* Exactly cap bytes fit. */
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, out, CAP), ZL_OK);
    memset(in, 0xA5, sizeof in);
    ZL_CHECK_EQ(receive_wait(&b, &from, in, CAP), CAP);
    ZL_CHECK(memcmp(in, out, CAP) == 0);
    ZL_CHECK_EQ(in[CAP], 0xA5);

    /* The largest datagram zerolag sends arrives whole. */
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, out, ZL_MAX_PACKET), ZL_OK);
    ZL_CHECK_EQ(receive_wait(&b, &from, in, sizeof in), ZL_MAX_PACKET);
    ZL_CHECK(memcmp(in, out, ZL_MAX_PACKET) == 0);
    ZL_CHECK(zl_addr_equal(&from, &a.addr));
    close_pair();
}

static void test_send_rejects_bad_arguments(void)
{
    endpoint a, b;
    uint8_t out[ZL_MAX_PACKET + 1], in[ZL_MAX_PACKET];
    static const uint8_t v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    zl_addr other_family;
    zl_addr from;
    if (open_pair(&a, &b, ZL_ADDR_IPV4) != ZL_OK)
        return;
    memset(out, 0x11, sizeof out);
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, out, 0), ZL_ERR_INVALID);
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, out, ZL_MAX_PACKET + 1), ZL_ERR_INVALID);
    other_family = zl_addr_ipv6(v6_loopback, b.addr.port);
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &other_family, out, 1), ZL_ERR_UNSUPPORTED);

    /* None of them went out: a marker sent afterwards is the first datagram
     * to arrive (loopback keeps order). */
    out[0] = 0x7E;
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, out, 3), ZL_OK);
    ZL_CHECK_EQ(receive_wait(&b, &from, in, sizeof in), 3);
    ZL_CHECK_EQ(in[0], 0x7E);
    ZL_CHECK_EQ(b.hal.receive(b.hal.ctx, &from, in, sizeof in), ZL_ERR_AGAIN);
    close_pair();
}

static void test_queued_datagrams_keep_order_and_size(void)
{
    enum { COUNT = 6 };
    endpoint a, b;
    zl_test_rng rng;
    size_t len[COUNT];
    static uint8_t out[COUNT][ZL_MAX_PACKET];
    uint8_t in[ZL_MAX_PACKET];
    zl_addr from;
    int i, r;
    if (open_pair(&a, &b, ZL_ADDR_IPV4) != ZL_OK)
        return;
    zl_test_rng_seed(&rng, 2024);
    for (i = 0; i < COUNT; i++) {
        len[i] = (size_t)zl_test_rng_range(&rng, 1, ZL_MAX_PACKET);
        fill_pattern(out[i], len[i], &rng);
        out[i][0] = (uint8_t)i; /* tells a reordering from a corruption */
        ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, out[i], len[i]), ZL_OK);
    }
    for (i = 0; i < COUNT; i++) {
        r = receive_wait(&b, &from, in, sizeof in);
        if (!ZL_CHECK_EQ(r, (int)len[i]))
            break;
        ZL_CHECK_EQ(in[0], i);
        ZL_CHECK(memcmp(in, out[i], len[i]) == 0);
        ZL_CHECK(zl_addr_equal(&from, &a.addr));
    }
    ZL_CHECK_EQ(b.hal.receive(b.hal.ctx, &from, in, sizeof in), ZL_ERR_AGAIN);
    close_pair();
}

static void test_from_tells_senders_apart(void)
{
    endpoint a, b, c;
    uint8_t msg, in[16];
    zl_addr from;
    if (open_pair(&a, &b, ZL_ADDR_IPV4) != ZL_OK)
        return;
    if (open_endpoint(&c, &port_c, ZL_ADDR_IPV4) == ZL_OK) {
        ZL_CHECK(!zl_addr_equal(&a.addr, &c.addr));
        msg = 'a';
        ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, &msg, 1), ZL_OK);
        ZL_CHECK_EQ(receive_wait(&b, &from, in, sizeof in), 1);
        ZL_CHECK(in[0] == 'a' && zl_addr_equal(&from, &a.addr));
        msg = 'c';
        ZL_CHECK_EQ(c.hal.send(c.hal.ctx, &b.addr, &msg, 1), ZL_OK);
        ZL_CHECK_EQ(receive_wait(&b, &from, in, sizeof in), 1);
        ZL_CHECK(in[0] == 'c' && zl_addr_equal(&from, &c.addr));
        zl_port_close(&port_c);
    }
    close_pair();
}

static void test_bad_addresses(void)
{
    static const char *const bad[] = {"127.0.0.1:99999", "127.0.0.256", "::1::", "[::1]x",
                                      "localhost", ""};
    endpoint a;
    zl_platform hal;
    zl_addr addr;
    size_t i;

    /* What a program does with its --bind or --connect text. */
    for (i = 0; i < ZL_COUNTOF(bad); i++)
        ZL_CHECK_EQ(zl_addr_parse(&addr, bad[i]), ZL_ERR_ADDRESS);

    /* An address without a family cannot be opened. */
    memset(&addr, 0, sizeof addr);
    ZL_CHECK_EQ(zl_port_open(&port_b, &addr, &hal), ZL_ERR_INVALID);

    /* An address already bound cannot be bound again. */
    if (open_endpoint(&a, &port_a, ZL_ADDR_IPV4) != ZL_OK)
        return;
    ZL_CHECK_EQ(zl_port_open(&port_b, &a.addr, &hal), ZL_ERR_ADDRESS);
    zl_port_close(&port_a);
}

/* A datagram to a port nobody listens on may come back as an ICMP error,
 * which some systems (Windows) then report from the next receive on that
 * socket. A game server sees this whenever a client quits, so it must not
 * surface as anything but "nothing waiting". */
static void test_refused_port_is_not_an_error(void)
{
    endpoint a, b, gone;
    uint8_t msg = 1, in[16];
    zl_addr from, gone_addr;
    uint64_t start;
    int r, others = 0, polls = 0;
    if (open_pair(&a, &b, ZL_ADDR_IPV4) != ZL_OK)
        return;
    if (open_endpoint(&gone, &port_c, ZL_ADDR_IPV4) != ZL_OK) {
        close_pair();
        return;
    }
    gone_addr = gone.addr;
    zl_port_close(&port_c);

    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &gone_addr, &msg, 1), ZL_OK);
    start = a.hal.now_us(a.hal.ctx);
    while (a.hal.now_us(a.hal.ctx) - start < ERROR_WATCH_US) {
        r = a.hal.receive(a.hal.ctx, &from, in, sizeof in);
        polls++;
        if (r != ZL_ERR_AGAIN && others++ < 3)
            zl_test_note("receive after a refused send returned %s", zl_strerror(r));
    }
    ZL_CHECK_EQ(others, 0);
    ZL_CHECK(polls > 0);

    /* The socket still works both ways. */
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &gone_addr, &msg, 1), ZL_OK);
    ZL_CHECK_EQ(b.hal.send(b.hal.ctx, &a.addr, &msg, 1), ZL_OK);
    ZL_CHECK_EQ(receive_wait(&a, &from, in, sizeof in), 1);
    ZL_CHECK(zl_addr_equal(&from, &b.addr));
    ZL_CHECK_EQ(a.hal.send(a.hal.ctx, &b.addr, &msg, 1), ZL_OK);
    ZL_CHECK_EQ(receive_wait(&b, &from, in, sizeof in), 1);
    close_pair();
}

void zl_suite_hal(void)
{
    ZL_RUN(test_clock_advances);
    ZL_RUN(test_clock_only_has_no_network);
    ZL_RUN(test_random_differs);
    ZL_RUN(test_round_trip_ipv4);
    ZL_RUN(test_round_trip_ipv6);
    ZL_RUN(test_receive_empty_is_again);
    ZL_RUN(test_truncated_datagram);
#ifdef ZL_PORT_RECEIVE_BUFFER
    ZL_RUN(test_receive_buffer);
#endif
    ZL_RUN(test_send_rejects_bad_arguments);
    ZL_RUN(test_queued_datagrams_keep_order_and_size);
    ZL_RUN(test_from_tells_senders_apart);
    ZL_RUN(test_bad_addresses);
    ZL_RUN(test_refused_port_is_not_an_error);
}
