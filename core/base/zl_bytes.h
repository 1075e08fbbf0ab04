/* zl_bytes.h - integers as bytes in a fixed order: little-endian for wire and
 * hash layouts, big-endian for IP addresses and ports, so every host reads
 * and writes the same bytes whatever its own byte order or alignment.
 * Not part of the API (docs/ARCHITECTURE.md): public because zl_bits.h's
 * inline reader uses it; an application calls none of it. */
#ifndef ZL_BYTES_H
#define ZL_BYTES_H

#include "zl_base.h"

ZL_BEGIN_DECLS

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

/* The fixed widths, least significant byte first. */
static inline void zl_put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void zl_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint16_t zl_get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t zl_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* 16 bits, most significant byte first (network order). */
static inline void zl_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline uint16_t zl_get_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

ZL_END_DECLS

#endif
