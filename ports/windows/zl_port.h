/* zl_port.h - the Windows port (Winsock2, QueryPerformanceCounter,
 * BCryptGenRandom); built with mingw-w64, tested under wine. */
#ifndef ZL_PORT_H
#define ZL_PORT_H

#include "zl_platform.h"

/* The receive buffer zl_port_open asks the OS for, in bytes. Datagrams
 * arriving while it is full are dropped by the kernel before any counter
 * sees them: at 300,000 junk datagrams a second the OS default (about
 * 200 KB on Linux) holds well under a millisecond of them. The OS may
 * grant less (Linux caps it at net.core.rmem_max); zl_port_receive_buffer
 * says what it granted. */
#ifndef ZL_PORT_RECEIVE_BUFFER
#define ZL_PORT_RECEIVE_BUFFER (4u * 1024u * 1024u)
#endif

ZL_BEGIN_DECLS

/* One UDP endpoint. Caller-owned (a static or a local that outlives every
 * use of the zl_platform filled by zl_port_open); fields are private. A
 * zero-initialised zl_port is closed. */
typedef struct zl_port {
    uintptr_t sock;  /* the SOCKET while is_open (kept as an integer so this
                        header needs no Windows header) */
    uint8_t family;  /* ZL_ADDR_IPV4 or ZL_ADDR_IPV6: the only family it sends to */
    uint8_t is_open; /* 1 between a successful open and close */
} zl_port;

/* Opens a non-blocking UDP socket bound to bind_addr (port 0 picks an
 * ephemeral port; an IPv6 socket is v6-only, so it neither sends to nor
 * receives from IPv4 addresses) and fills *hal with functions whose ctx is
 * `port`. The first open starts Winsock and the last close stops it (a
 * reference count, so open and close from one thread). Whatever port held
 * before is overwritten: close it first. On failure port is left closed
 * and *hal is not written. Returns ZL_OK, ZL_ERR_INVALID (family NONE or
 * unknown), ZL_ERR_UNSUPPORTED (the host has no such family),
 * ZL_ERR_ADDRESS (the address cannot be bound: in use, not on this host,
 * or not permitted) or ZL_ERR_IO (including Winsock failing to start).
 *
 * The filled HAL behaves as zl_platform.h says, and also: send to the
 * other family gives ZL_ERR_UNSUPPORTED; receive reports any datagram
 * larger than min(cap, ZL_MAX_PACKET) as ZL_ERR_TRUNCATED (still setting
 * *from) and ignores the WSAECONNRESET an earlier send to a closed port
 * leaves behind. Not thread-safe: one thread per zl_port. */
int zl_port_open(zl_port *port, const zl_addr *bind_addr, zl_platform *hal);

/* The address the socket is bound to, with the port the system picked.
 * ZL_OK, ZL_ERR_INVALID when port is not open, ZL_ERR_IO on failure. */
int zl_port_local_addr(const zl_port *port, zl_addr *out);

/* The receive buffer the OS granted the open socket, in bytes as the OS
 * reports it (Linux reports twice what it was asked for: it counts its own
 * bookkeeping), or ZL_ERR_INVALID when port is not open, ZL_ERR_IO on
 * failure. */
int zl_port_receive_buffer(const zl_port *port);

/* Closes the socket. Safe on a closed or zero-initialised zl_port; the
 * zl_platform filled by open must not be used afterwards. */
void zl_port_close(zl_port *port);

/* Fills *hal with the clock and random source only (ctx NULL), for code
 * that needs time but no network, e.g. benchmarks and the link
 * conditioner's tests. Its send and receive return ZL_ERR_UNSUPPORTED. */
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
