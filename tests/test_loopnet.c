/* test_loopnet.c - the in-memory network: binding, ordering, drops that are
 * counted, pool exhaustion, truncation, and returning packets on close. */
#include <string.h>

#include "zl_loopnet.h"
#include "zl_test.h"

static zl_loopnet net;

static void setup(void)
{
    zl_platform clock;
    zl_test_fake_platform(&clock);
    zl_loopnet_init(&net, &clock);
}

static void test_round_trip_in_order(void)
{
    zl_loopnet_endpoint a, b;
    zl_platform ha, hb;
    zl_addr from, addr_a = zl_addr_ipv4(127, 0, 0, 1, 1000), addr_b = zl_addr_ipv4(127, 0, 0, 1, 2000);
    uint8_t buf[ZL_MAX_PACKET];
    int i, n;
    setup();
    ZL_CHECK_EQ(zl_loopnet_open(&net, &a, &addr_a, &ha), ZL_OK);
    ZL_CHECK_EQ(zl_loopnet_open(&net, &b, &addr_b, &hb), ZL_OK);
    for (i = 1; i <= 5; i++) {
        memset(buf, i, (size_t)i * 10);
        ZL_CHECK_EQ(ha.send(ha.ctx, &addr_b, buf, (size_t)i * 10), ZL_OK);
    }
    for (i = 1; i <= 5; i++) {
        n = hb.receive(hb.ctx, &from, buf, sizeof buf);
        ZL_CHECK_EQ(n, i * 10);
        ZL_CHECK_EQ(buf[0], i);
        ZL_CHECK(zl_addr_equal(&from, &addr_a));
    }
    ZL_CHECK_EQ(hb.receive(hb.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN);
    ZL_CHECK_EQ(net.sent, 5);
    zl_test_time_us = 1234;
    ZL_CHECK_EQ(hb.now_us(hb.ctx), 1234);
}

static void test_unbound_and_family(void)
{
    zl_loopnet_endpoint a;
    zl_platform ha;
    zl_addr addr_a = zl_addr_ipv4(127, 0, 0, 1, 1000), nobody = zl_addr_ipv4(127, 0, 0, 1, 9);
    uint8_t v6[16] = {0};
    zl_addr six;
    uint8_t byte = 1;
    v6[15] = 1;
    six = zl_addr_ipv6(v6, 5);
    setup();
    ZL_CHECK_EQ(zl_loopnet_open(&net, &a, &addr_a, &ha), ZL_OK);
    ZL_CHECK_EQ(ha.send(ha.ctx, &nobody, &byte, 1), ZL_OK);
    ZL_CHECK_EQ(net.dropped_unbound, 1);
    ZL_CHECK_EQ(ha.send(ha.ctx, &six, &byte, 1), ZL_ERR_UNSUPPORTED);
    ZL_CHECK_EQ(ha.send(ha.ctx, &nobody, &byte, 0), ZL_ERR_INVALID);
    ZL_CHECK_EQ(ha.send(ha.ctx, &nobody, &byte, ZL_MAX_PACKET + 1), ZL_ERR_INVALID);
}

static void test_bind_rules(void)
{
    zl_loopnet_endpoint ep[ZL_LOOPNET_ENDPOINTS + 1];
    zl_platform h;
    zl_addr fixed = zl_addr_ipv4(10, 0, 0, 1, 7), any = zl_addr_ipv4(10, 0, 0, 1, 0), none;
    int i;
    setup();
    memset(&none, 0, sizeof none);
    ZL_CHECK_EQ(zl_loopnet_open(&net, &ep[0], &none, &h), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_loopnet_open(&net, &ep[0], &fixed, &h), ZL_OK);
    ZL_CHECK_EQ(zl_loopnet_open(&net, &ep[1], &fixed, &h), ZL_ERR_ADDRESS);
    for (i = 1; i < ZL_LOOPNET_ENDPOINTS; i++) {
        zl_addr got;
        ZL_CHECK_EQ(zl_loopnet_open(&net, &ep[i], &any, &h), ZL_OK);
        got = zl_loopnet_address(&ep[i]);
        ZL_CHECK(got.port >= 49152u);
        ZL_CHECK(!zl_addr_equal(&got, &fixed));
    }
    ZL_CHECK_EQ(zl_loopnet_open(&net, &ep[ZL_LOOPNET_ENDPOINTS], &any, &h), ZL_ERR_FULL);
    zl_loopnet_close(&ep[0]);
    ZL_CHECK_EQ(zl_loopnet_open(&net, &ep[ZL_LOOPNET_ENDPOINTS], &fixed, &h), ZL_OK);
    /* A second close of ep[0] must not unbind the slot's new owner. */
    zl_loopnet_close(&ep[0]);
    ZL_CHECK_EQ(zl_loopnet_open(&net, &ep[0], &fixed, &h), ZL_ERR_ADDRESS);
}

static void test_pool_exhaustion_and_close(void)
{
    zl_loopnet_endpoint a, b;
    zl_platform ha, hb;
    zl_addr addr_a = zl_addr_ipv4(127, 0, 0, 1, 1), addr_b = zl_addr_ipv4(127, 0, 0, 1, 2), from;
    uint8_t byte = 7, buf[4];
    int i;
    setup();
    zl_loopnet_open(&net, &a, &addr_a, &ha);
    zl_loopnet_open(&net, &b, &addr_b, &hb);
    for (i = 0; i < ZL_LOOPNET_PACKETS; i++)
        ZL_CHECK_EQ(ha.send(ha.ctx, &addr_b, &byte, 1), ZL_OK);
    ZL_CHECK_EQ(ha.send(ha.ctx, &addr_b, &byte, 1), ZL_ERR_AGAIN);
    ZL_CHECK_EQ(net.dropped_full, 1);
    /* Closing the receiver returns every queued packet to the pool. */
    zl_loopnet_close(&b);
    zl_loopnet_open(&net, &b, &addr_b, &hb);
    for (i = 0; i < ZL_LOOPNET_PACKETS; i++)
        ZL_CHECK_EQ(ha.send(ha.ctx, &addr_b, &byte, 1), ZL_OK);
    for (i = 0; i < ZL_LOOPNET_PACKETS; i++)
        ZL_CHECK_EQ(hb.receive(hb.ctx, &from, buf, sizeof buf), 1);
    ZL_CHECK_EQ(hb.receive(hb.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN);
}

static void test_truncation_guards_buffer(void)
{
    zl_loopnet_endpoint a, b;
    zl_platform ha, hb;
    zl_addr addr_a = zl_addr_ipv4(127, 0, 0, 1, 1), addr_b = zl_addr_ipv4(127, 0, 0, 1, 2), from;
    uint8_t big[100], buf[16];
    setup();
    zl_loopnet_open(&net, &a, &addr_a, &ha);
    zl_loopnet_open(&net, &b, &addr_b, &hb);
    memset(big, 0xAB, sizeof big);
    memset(buf, 0, sizeof buf);
    ZL_CHECK_EQ(ha.send(ha.ctx, &addr_b, big, sizeof big), ZL_OK);
    ZL_CHECK_EQ(hb.receive(hb.ctx, &from, buf, 8), ZL_ERR_TRUNCATED);
    ZL_CHECK_EQ(buf[8], 0); /* nothing written past cap */
    ZL_CHECK_EQ(hb.receive(hb.ctx, &from, buf, sizeof buf), ZL_ERR_AGAIN);
}

void zl_suite_loopnet(void)
{
    ZL_RUN(test_round_trip_in_order);
    ZL_RUN(test_unbound_and_family);
    ZL_RUN(test_bind_rules);
    ZL_RUN(test_pool_exhaustion_and_close);
    ZL_RUN(test_truncation_guards_buffer);
}
