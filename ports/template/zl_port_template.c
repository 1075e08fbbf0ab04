/* zl_port_template.c - the real shape of a port with every platform call
 * stubbed; each STUB says what it must do and which conformance test checks it. */
#include "zl_port.h"

#include <string.h>

/* STUB: create the transport endpoint for bind_addr->family, make it
 * non-blocking, and bind it to bind_addr (port 0: let the platform pick a
 * free port). Store the handle in port. Map failures: family missing ->
 * ZL_ERR_UNSUPPORTED; address in use, not local or not permitted ->
 * ZL_ERR_ADDRESS; anything else -> ZL_ERR_IO, releasing what was created.
 * An IPv6 endpoint must be v6-only.
 * Checked by: test_round_trip_ipv4/ipv6 (open, then the bound address),
 * test_bad_addresses (binding an address already bound gives
 * ZL_ERR_ADDRESS), test_receive_empty_is_again (never blocks). */
static int transport_bind(zl_port *port, const zl_addr *bind_addr)
{
    (void)port;
    (void)bind_addr;
    return ZL_ERR_UNSUPPORTED;
}

/* STUB: send one datagram of len bytes to `to`, never blocking.
 * Already done below: len 0 or above ZL_MAX_PACKET -> ZL_ERR_INVALID, an
 * address of the other family -> ZL_ERR_UNSUPPORTED. Left to do: hand the
 * bytes to the platform; ZL_OK once accepted (delivery is not promised),
 * ZL_ERR_AGAIN when its queue is full, ZL_ERR_IO otherwise. If the
 * platform reports an earlier datagram's "port unreachable" on this call,
 * retry instead of failing.
 * Checked by: test_send_rejects_bad_arguments (rejected datagrams must not
 * go out), test_round_trip_ipv4/ipv6, test_queued_datagrams_keep_order_and_size. */
static int port_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    zl_port *port = (zl_port *)ctx;
    ZL_ASSERT(port != NULL && to != NULL && (data != NULL || len == 0));
    if (len == 0 || len > ZL_MAX_PACKET || !port->is_open)
        return ZL_ERR_INVALID;
    if (to->family != ZL_ADDR_IPV4 && to->family != ZL_ADDR_IPV6)
        return ZL_ERR_INVALID;
    if (to->family != port->family)
        return ZL_ERR_UNSUPPORTED;
    return ZL_ERR_UNSUPPORTED;
}

/* STUB: take one waiting datagram without blocking and set *from to its
 * sender (the sender's bound address and port, exactly). Return its length;
 * ZL_ERR_AGAIN when none is waiting; ZL_ERR_TRUNCATED when it is longer
 * than cap (or than ZL_MAX_PACKET): it is consumed, and not one byte may be
 * written at or past buf[cap] - receive into a ZL_MAX_PACKET + 1 staging
 * buffer first if the platform cannot say how long a datagram was. Errors
 * that describe an earlier send (ICMP port unreachable, WSAECONNRESET) are
 * not failures: skip them and look again.
 * Checked by: test_receive_empty_is_again, test_truncated_datagram (guard
 * bytes after cap), test_queued_datagrams_keep_order_and_size (order and
 * sizes), test_from_tells_senders_apart, test_refused_port_is_not_an_error. */
static int port_receive(void *ctx, zl_addr *from, void *buf, size_t cap)
{
    zl_port *port = (zl_port *)ctx;
    ZL_ASSERT(port != NULL && from != NULL && (buf != NULL || cap == 0));
    (void)buf;
    (void)cap;
    if (!port->is_open)
        return ZL_ERR_INVALID;
    return ZL_ERR_UNSUPPORTED;
}

/* STUB: microseconds from a monotonic clock (never the wall clock, which
 * steps). Any origin; must never go backwards and must advance while the
 * program runs, with as fine a resolution as the platform offers. This
 * stub is a stopped clock.
 * Checked by: test_clock_advances (busy-waits, bounded, until it moves;
 * then reads it many times and finds no step backwards). */
static uint64_t port_now_us(void *ctx)
{
    (void)ctx;
    return 0;
}

/* STUB: fill out with len unpredictable bytes from the platform's CSPRNG
 * or hardware TRNG; ZL_OK or ZL_ERR_IO, and len 0 is ZL_OK. Connection
 * cookies are only as strong as this source: a board without a TRNG must
 * say so loudly where it falls back to anything weaker.
 * Checked by: test_random_differs (two draws differ, a long draw is filled
 * to its end and not past it). */
static int port_random(void *ctx, void *out, size_t len)
{
    (void)ctx;
    (void)out;
    (void)len;
    return ZL_ERR_UNSUPPORTED;
}

/* Complete as it is once transport_bind works.
 * Checked by: every datagram test, and test_bad_addresses (family NONE ->
 * ZL_ERR_INVALID). */
int zl_port_open(zl_port *port, const zl_addr *bind_addr, zl_platform *hal)
{
    int r;
    ZL_ASSERT(port != NULL && bind_addr != NULL && hal != NULL);
    memset(port, 0, sizeof *port);
    if (bind_addr->family != ZL_ADDR_IPV4 && bind_addr->family != ZL_ADDR_IPV6)
        return ZL_ERR_INVALID;
    r = transport_bind(port, bind_addr);
    if (r != ZL_OK)
        return r;
    port->family = bind_addr->family;
    port->is_open = 1;
    hal->ctx = port;
    hal->send = port_send;
    hal->receive = port_receive;
    hal->now_us = port_now_us;
    hal->random = port_random;
    return ZL_OK;
}

/* STUB: ask the platform which address and port the endpoint is bound to
 * (the port it picked when bind_addr had port 0).
 * Checked by: test_round_trip_ipv4/ipv6 (same family and ip as asked, a
 * non-zero port, and equal to the `from` the peer sees). */
int zl_port_local_addr(const zl_port *port, zl_addr *out)
{
    ZL_ASSERT(port != NULL && out != NULL);
    if (!port->is_open)
        return ZL_ERR_INVALID;
    return ZL_ERR_UNSUPPORTED;
}

/* STUB: release the transport handle when is_open; the rest is done.
 * Checked by: every test closes what it opened, so a leak shows up as
 * failing opens on a platform with few endpoints. */
void zl_port_close(zl_port *port)
{
    ZL_ASSERT(port != NULL);
    port->is_open = 0;
}

/* STUB: report the OS receive buffer if the platform has one (a port that
 * sets one defines ZL_PORT_RECEIVE_BUFFER in its zl_port.h); the rest is
 * done. Checked by: test_receive_buffer, when ZL_PORT_RECEIVE_BUFFER is
 * defined. */
int zl_port_receive_buffer(const zl_port *port)
{
    ZL_ASSERT(port != NULL);
    if (!port->is_open)
        return ZL_ERR_INVALID;
    return ZL_ERR_UNSUPPORTED;
}

/* Complete as it is.
 * Checked by: test_clock_only_has_no_network. */
void zl_port_clock_only(zl_platform *hal)
{
    zl_platform_clock_only(hal, 0, port_now_us, port_random);
}
