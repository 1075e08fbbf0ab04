/* zl_loopnet.h - an in-memory datagram network inside one program: endpoints
 * bound to addresses exchange datagrams through a static packet pool. */
#ifndef ZL_LOOPNET_H
#define ZL_LOOPNET_H

#include "zl_platform.h"

ZL_BEGIN_DECLS

/* Private: one datagram in flight. */
typedef struct zl_loopnet_packet {
    zl_addr from;
    uint16_t len;
    int16_t next; /* next packet in the same queue, or -1 */
    uint8_t data[ZL_MAX_PACKET];
} zl_loopnet_packet;

/* Private: a bound endpoint's receive queue. */
typedef struct zl_loopnet_slot {
    zl_addr addr;
    uint8_t bound;
    int16_t head, tail; /* queue of packets, -1 when empty */
} zl_loopnet_slot;

/* The network. Zero it with zl_loopnet_init before use; caller-owned. */
typedef struct zl_loopnet {
    zl_platform clock; /* now_us and random of every endpoint come from here */
    zl_loopnet_slot slot[ZL_LOOPNET_ENDPOINTS];
    zl_loopnet_packet packet[ZL_LOOPNET_PACKETS];
    int16_t free_head;
    uint16_t next_port;     /* for ephemeral binds */
    uint32_t sent;          /* datagrams queued for a bound receiver */
    uint32_t dropped_unbound; /* sent to an address nobody is bound to */
    uint32_t dropped_full;  /* the packet pool was exhausted */
} zl_loopnet;

/* An endpoint handle; its address is the ctx of the zl_platform it fills. */
typedef struct zl_loopnet_endpoint {
    zl_loopnet *net;
    int index;
} zl_loopnet_endpoint;

/* Prepares an empty network whose endpoints take their clock and random
 * source from `clock` (its send/receive are never used). */
void zl_loopnet_init(zl_loopnet *net, const zl_platform *clock);

/* Binds an endpoint to bind_addr (port 0 picks a free ephemeral port) and
 * fills *hal: send queues a copy for whoever is bound to the destination
 * (datagrams to nobody are dropped and counted, like UDP); receive pops in
 * order. Returns ZL_OK, ZL_ERR_INVALID (family NONE), ZL_ERR_ADDRESS
 * (address in use) or ZL_ERR_FULL (all endpoints taken). */
int zl_loopnet_open(zl_loopnet *net, zl_loopnet_endpoint *ep, const zl_addr *bind_addr,
                    zl_platform *hal);

/* The address an endpoint is bound to. */
zl_addr zl_loopnet_address(const zl_loopnet_endpoint *ep);

/* Unbinds; queued datagrams return to the pool. Closing twice, or closing a
 * zeroed endpoint, does nothing. */
void zl_loopnet_close(zl_loopnet_endpoint *ep);

ZL_END_DECLS

#endif
