/* zl_sockaddr.h - conversions between zl_addr and BSD-style sockaddr, shared
 * by the socket ports (POSIX and Winsock have the same structures). */
#ifndef ZL_SOCKADDR_H
#define ZL_SOCKADDR_H

/* Include after the platform's socket headers, with ZL_SOCKLEN defined as
 * the type its socket calls take for address lengths (socklen_t or int). */
#include <string.h>

#include "zl_addr.h"

/* One storage for every address family, so no pointer cast between
 * sockaddr types is needed. */
typedef union sockaddr_any {
    struct sockaddr sa;
    struct sockaddr_in in4;
    struct sockaddr_in6 in6;
} sockaddr_any;

/* Returns the length to pass to the socket call, or 0 for a family that
 * has no socket form. */
static inline ZL_SOCKLEN to_sockaddr(const zl_addr *a, sockaddr_any *out)
{
    memset(out, 0, sizeof *out);
    if (a->family == ZL_ADDR_IPV4) {
        out->in4.sin_family = AF_INET;
        out->in4.sin_port = htons(a->port);
        memcpy(&out->in4.sin_addr, a->ip, 4);
        return (ZL_SOCKLEN)sizeof out->in4;
    }
    if (a->family == ZL_ADDR_IPV6) {
        out->in6.sin6_family = AF_INET6;
        out->in6.sin6_port = htons(a->port);
        memcpy(&out->in6.sin6_addr, a->ip, 16);
        return (ZL_SOCKLEN)sizeof out->in6;
    }
    return 0;
}

/* The IPv6 scope id is dropped: zerolag keys peers by address and port. */
static inline int from_sockaddr(const sockaddr_any *in, ZL_SOCKLEN len, zl_addr *out)
{
    if (in->sa.sa_family == AF_INET && len >= (ZL_SOCKLEN)sizeof in->in4) {
        const uint8_t *b = (const uint8_t *)&in->in4.sin_addr;
        *out = zl_addr_ipv4(b[0], b[1], b[2], b[3], ntohs(in->in4.sin_port));
        return ZL_OK;
    }
    if (in->sa.sa_family == AF_INET6 && len >= (ZL_SOCKLEN)sizeof in->in6) {
        *out = zl_addr_ipv6((const uint8_t *)&in->in6.sin6_addr, ntohs(in->in6.sin6_port));
        return ZL_OK;
    }
    return ZL_ERR_IO;
}

#endif
