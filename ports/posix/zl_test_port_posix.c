/* zl_test_port_posix.c - conformance-suite glue for the POSIX port: the
 * loopback addresses 127.0.0.1 and ::1 (see tests/zl_test_port.h). */
#include "zl_test_port.h"

int zl_test_port_loopback(int family, zl_addr *out)
{
    static const uint8_t v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    if (family == ZL_ADDR_IPV4) {
        *out = zl_addr_ipv4(127, 0, 0, 1, 0);
        return ZL_OK;
    }
    if (family == ZL_ADDR_IPV6) {
        *out = zl_addr_ipv6(v6_loopback, 0);
        return ZL_OK;
    }
    return ZL_ERR_UNSUPPORTED;
}
