/* zl_port.h - the port template: the API every port offers, with a zl_port
 * to fill in. Copy the folder to ports/<name>/ and follow README.md. */
#ifndef ZL_PORT_H
#define ZL_PORT_H

#include "zl_platform.h"

ZL_BEGIN_DECLS

/* One datagram endpoint. Caller-owned (a static or a local that outlives
 * every use of the zl_platform filled by zl_port_open); fields are private.
 * Put here whatever your transport needs (a socket handle, a queue index):
 * no heap, so everything lives in this struct or in static storage. Keep a
 * zero-initialised zl_port meaning "closed". */
typedef struct zl_port {
    int handle;      /* replace with the transport's handle */
    uint8_t family;  /* ZL_ADDR_IPV4 or ZL_ADDR_IPV6: the family it is bound to */
    uint8_t is_open; /* 1 between a successful open and close */
} zl_port;

/* Opens an endpoint bound to bind_addr (port 0 picks an ephemeral port)
 * and fills *hal with functions whose ctx is `port`. On failure port is
 * left closed and *hal is not written. Returns ZL_OK, ZL_ERR_INVALID
 * (family NONE or unknown), ZL_ERR_UNSUPPORTED (the platform has no such
 * family), ZL_ERR_ADDRESS (the address cannot be bound, e.g. in use) or
 * ZL_ERR_IO. The template returns ZL_ERR_UNSUPPORTED until filled in. */
int zl_port_open(zl_port *port, const zl_addr *bind_addr, zl_platform *hal);

/* The address the endpoint is bound to, with the port actually chosen.
 * ZL_OK, ZL_ERR_INVALID when port is not open, ZL_ERR_IO on failure. */
int zl_port_local_addr(const zl_port *port, zl_addr *out);

/* Releases the endpoint. Safe on a closed or zero-initialised zl_port; the
 * zl_platform filled by open must not be used afterwards. */
void zl_port_close(zl_port *port);

/* The bytes of datagrams the platform can hold before dropping arrivals
 * (an OS socket's receive buffer), ZL_ERR_INVALID when port is not open,
 * ZL_ERR_UNSUPPORTED when the platform has no such figure. */
int zl_port_receive_buffer(const zl_port *port);

/* Fills *hal with the clock and random source only (ctx NULL), for code
 * that needs time but no network. Its send and receive return
 * ZL_ERR_UNSUPPORTED. */
void zl_port_clock_only(zl_platform *hal);

/* The port's high-resolution timer, for benchmarks and the demo's tick
 * cost (ports/<name>/zl_timer_<name>.c). On hosts: monotonic nanoseconds; on
 * an emulated Cortex-M under -icount shift=0: instructions retired (1 per
 * virtual ns). */
uint64_t zl_port_timer_now(void);
/* "ns" or "instr": the unit of zl_port_timer_now. */
const char *zl_port_timer_unit(void);
/* 1 when the timer is exact and repeatable (emulated instruction count):
 * then one batch is enough and no spread is reported. */
int zl_port_timer_exact(void);

ZL_END_DECLS

#endif
