/* zl_bytes.h - integers as little-endian bytes, for wire and hash layouts
 * that must be the same on every host whatever its byte order. */
#ifndef ZL_BYTES_H
#define ZL_BYTES_H

#include <stdint.h>

/* Writes the low n bytes of v at p, least significant first. */
static inline void zl_put_le(uint8_t *p, uint64_t v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8u * i));
}

/* Reads n bytes at p, least significant first. */
static inline uint64_t zl_get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n-- > 0)
        v = v << 8 | p[n];
    return v;
}

#endif
