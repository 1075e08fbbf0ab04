/* demo_net.h - one program's network: a UDP socket of the port's HAL with
 * the link conditioner stacked on it for --fakelag, --fakejitter, --fakeloss. */
#ifndef DEMO_NET_H
#define DEMO_NET_H

#include "demo_options.h"
#include "zl_conditioner.h"
#include "zl_port.h"

/* Large (the conditioner holds its packets): keep it in static storage. */
typedef struct demo_net {
    zl_port port;
    zl_platform socket;  /* the port's HAL */
    zl_conditioner cond;
    zl_platform hal;     /* the socket as impaired: what the endpoint uses */
} demo_net;

/* Opens a socket bound to bind_addr and conditions both directions as o
 * says (half the fake round trip each way). seed drives the conditioner's
 * draws. Returns ZL_OK or zl_port_open's error. */
int demo_net_open(demo_net *n, const zl_addr *bind_addr, const demo_options *o, uint64_t seed);

/* The next datagram that is due: its length, with *from set;
 * ZL_ERR_TRUNCATED for one larger than cap or ZL_MAX_PACKET, which was
 * dropped unread (the caller counts it); -1 when none is waiting. */
int demo_net_next(demo_net *n, zl_addr *from, void *buf, size_t cap);

/* Hands due outgoing datagrams to the socket; call every loop. */
void demo_net_pump(demo_net *n);

/* Keeps pumping for at most max_us until nothing is queued to send, so a
 * goodbye delayed by the fake lag still leaves before the program ends. */
void demo_net_flush(demo_net *n, uint32_t max_us);

void demo_net_close(demo_net *n);

#endif
