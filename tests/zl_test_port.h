/* zl_test_port.h - the glue each port supplies (ports/<name>/zl_test_port_<name>.c)
 * so the HAL conformance suite (tests/hal_conformance.c) can run on it. */
#ifndef ZL_TEST_PORT_H
#define ZL_TEST_PORT_H

#include "zl_addr.h"

/* The loopback address, with port 0, that the conformance suite binds for
 * `family` (ZL_ADDR_IPV4 or ZL_ADDR_IPV6): 127.0.0.1 and ::1 on a socket
 * port, any address of the in-image network on a bare-metal port. Returns
 * ZL_OK, or ZL_ERR_UNSUPPORTED when the port has no IPv6 at all (the suite
 * then notes it and skips the IPv6 tests); IPv4 is required. Anything a
 * port returns must be private to the machine: the suite sends datagrams
 * to it. */
int zl_test_port_loopback(int family, zl_addr *out);

#endif
