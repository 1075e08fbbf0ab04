/* demo_net.h - one program's network: a UDP socket of the port's HAL with
 * the link conditioner stacked on it for --fakelag, --fakejitter, --fakeloss,
 * --fakeburst and --fakespike. */
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
 * says (half the fake round trip each way). --fakeburst's bursts are
 * counted in datagrams, so they need each direction's rate: a client sends
 * cmdrate and receives updaterate datagrams a second, a server (server 1)
 * the reverse, as for one client (with several, its bursts come more often
 * and each spans less time). seed drives the conditioner's draws and where
 * its lag spikes fall. Returns ZL_OK, zl_port_open's error, or
 * ZL_ERR_INVALID when a burst's mean is not shorter than the datagrams of
 * DEMO_BURST_EVERY_MS (demo_options_load refuses such options; nothing
 * opened). */
int demo_net_open(demo_net *n, const zl_addr *bind_addr, const demo_options *o, int server,
                  uint64_t seed);

/* The next datagram that is due: its length, with *from set;
 * ZL_ERR_TRUNCATED for one larger than cap or ZL_MAX_PACKET, which was
 * dropped unread (the caller counts it); -1 when none is waiting. */
int demo_net_next(demo_net *n, zl_addr *from, void *buf, size_t cap);

/* Hands due outgoing datagrams to the socket; call every loop. */
void demo_net_pump(demo_net *n);

/* Keeps pumping for at most max_us until nothing is queued to send, so a
 * goodbye delayed by the fake lag still leaves before the program ends. */
void demo_net_flush(demo_net *n, uint32_t max_us);

/* Longest o's conditioner holds a datagram, and 50 ms more: half the fake
 * round trip, the jitter and a lag spike. What demo_net_flush waits for a
 * goodbye. */
uint32_t demo_net_hold_us(const demo_options *o);

void demo_net_close(demo_net *n);

#endif
