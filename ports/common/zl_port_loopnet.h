/* zl_port_loopnet.h - the network half of a port without sockets (Cortex-M3,
 * wasm32): every zl_port of the program is an endpoint of one loop network. */
#ifndef ZL_PORT_LOOPNET_H
#define ZL_PORT_LOOPNET_H

#include "zl_loopnet.h"

ZL_BEGIN_DECLS

/* An endpoint on the program's loopback network (every zl_port of the
 * program shares one network, so a server and its clients can run in one
 * program). Caller-owned; zero-initialised is closed. */
typedef struct zl_port {
    zl_loopnet_endpoint endpoint;
} zl_port;

/* Binds an endpoint of the in-program network to bind_addr (port 0 picks an
 * ephemeral port) and fills *hal. The network takes its clock and random
 * source from the port's zl_port_clock_only. Returns the codes of
 * zl_loopnet_open. */
int zl_port_open(zl_port *port, const zl_addr *bind_addr, zl_platform *hal);
/* The bound address; ZL_OK. */
int zl_port_local_addr(const zl_port *port, zl_addr *out);
/* Unbinds; safe on a closed or zeroed port. */
void zl_port_close(zl_port *port);
/* ZL_ERR_UNSUPPORTED: the in-program network has no OS receive buffer (its
 * datagrams wait in the loop network's own queue). */
int zl_port_receive_buffer(const zl_port *port);
/* A HAL with only the clock and random source; send/receive return
 * ZL_ERR_UNSUPPORTED. Each port supplies its own. */
void zl_port_clock_only(zl_platform *hal);

ZL_END_DECLS

#endif
