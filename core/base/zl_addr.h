/* zl_addr.h - IPv4 and IPv6 endpoint addresses: parse, format, compare.
 * Pure data, no sockets: the core keys connections by address. */
#ifndef ZL_ADDR_H
#define ZL_ADDR_H

#include "zl_base.h"

ZL_BEGIN_DECLS

enum { ZL_ADDR_NONE = 0, ZL_ADDR_IPV4 = 4, ZL_ADDR_IPV6 = 6 };

/* An endpoint. IPv4 uses ip[0..3]; the rest stays zero so memcmp-free
 * comparison and hashing see one canonical form. Port in host order. */
typedef struct zl_addr {
    uint8_t family; /* ZL_ADDR_NONE, ZL_ADDR_IPV4 or ZL_ADDR_IPV6 */
    uint8_t ip[16]; /* network byte order */
    uint16_t port;
} zl_addr;

/* Longest text zl_addr_format writes, terminator included:
 * "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535". */
#define ZL_ADDR_TEXT_MAX 48

/* Parses "a.b.c.d", "a.b.c.d:port", an IPv6 literal ("::1", "fe80::1",
 * "::ffff:1.2.3.4") or "[ipv6]:port". A missing port is 0. Returns ZL_OK, or
 * ZL_ERR_ADDRESS for anything else (out must still be valid memory; it is set
 * to family ZL_ADDR_NONE). Hostnames are not resolved. */
int zl_addr_parse(zl_addr *out, const char *text);

/* Writes the canonical text form (IPv6 per RFC 5952, with brackets when a
 * port is set; the port is omitted when 0). Returns the length written,
 * excluding the terminator, or ZL_ERR_OVERFLOW when cap is too small (buf
 * then holds an empty string if cap > 0), ZL_ERR_INVALID for family NONE. */
int zl_addr_format(const zl_addr *a, char *buf, size_t cap);

/* 1 when family, ip and port are all equal, else 0. */
int zl_addr_equal(const zl_addr *a, const zl_addr *b);

/* Total order (family, then ip, then port): negative, 0 or positive. */
int zl_addr_compare(const zl_addr *a, const zl_addr *b);

/* Convenience constructors; ip bytes in network order. */
zl_addr zl_addr_ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port);
zl_addr zl_addr_ipv6(const uint8_t ip[16], uint16_t port);

ZL_END_DECLS

#endif
