/* zl_port_loopnet.c - zl_port_open and friends for ports without sockets:
 * one loop network for the whole program, on the port's clock. */
#include "zl_port.h"

static zl_loopnet program_net;
static int program_net_ready;

int zl_port_open(zl_port *port, const zl_addr *bind_addr, zl_platform *hal)
{
    if (!program_net_ready) {
        zl_platform clock;
        zl_port_clock_only(&clock);
        zl_loopnet_init(&program_net, &clock);
        program_net_ready = 1;
    }
    return zl_loopnet_open(&program_net, &port->endpoint, bind_addr, hal);
}

int zl_port_local_addr(const zl_port *port, zl_addr *out)
{
    *out = zl_loopnet_address(&port->endpoint);
    return ZL_OK;
}

void zl_port_close(zl_port *port) { zl_loopnet_close(&port->endpoint); }

int zl_port_receive_buffer(const zl_port *port)
{
    (void)port;
    return ZL_ERR_UNSUPPORTED;
}
