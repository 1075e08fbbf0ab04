/* zl_test_port_template.c - the port template's conformance-suite glue (see
 * tests/zl_test_port.h): which loopback address the suite binds per family. */
#include "zl_test_port.h"

/* STUB: give a bind address (port 0) that only this machine can reach: on a
 * socket platform 127.0.0.1 and ::1, on bare metal any address of the
 * in-image network. IPv4 is required; return ZL_ERR_UNSUPPORTED for IPv6
 * if the port has none, and the suite skips the IPv6 test with a note. */
int zl_test_port_loopback(int family, zl_addr *out)
{
    (void)family;
    (void)out;
    return ZL_ERR_UNSUPPORTED;
}
